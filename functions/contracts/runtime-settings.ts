/** Settings both the CDK and the functions (or the local stack) need, defined once. */

/** Powertools' service name on every log line and metric. */
export const SERVICE_NAME = 'market-data-alerts';

/** How long the authorizer keeps a key and its account in memory (ADR 0003). */
export const AUTH_CACHE_TTL_SECONDS = 10;

import { POST_CONCURRENCY } from '#contracts/websocket';
import type { CredentialLookup } from '#domain/access/ports';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { recordMetric } from '#runtime/metrics';
import { freshCredentialLookup } from '#runtime/ports/access';
import { clientConnections } from '#runtime/ports/client-connections';
import type { ServicePorts } from '#runtime/ports/service-ports';
import { connectionStore, subscriptionStore } from '#runtime/ports/streaming';
import { sendHeartbeats } from '#use-cases/heartbeat';
import type { SessionPorts } from '#use-cases/websocket-session';

export interface HeartbeatOutcome {
  readonly sent: number;
  readonly gone: number;
  /** Connections closed because their key was revoked or their account's entitlement lapsed. */
  readonly closed: number;
  readonly failed: number;
}

/**
 * The heartbeat (an EventBridge schedule on AWS, a timer locally): one round over every connection
 * (functions/use-cases/heartbeat.ts), its refusals counted by close code and its failures logged.
 */
export const createHandler =
  (deps: { ports: () => SessionPorts; credentials: () => CredentialLookup }) =>
  async (): Promise<HeartbeatOutcome> => {
    const { closeCodes, errors, ...counts } = await sendHeartbeats({
      ...deps.ports(),
      credentials: deps.credentials(),
      concurrency: POST_CONCURRENCY,
    });
    for (const code of closeCodes) recordMetric('refusals', 1, String(code));
    for (const error of errors) logger.warn('heartbeat failed for a connection', { error });
    logger.info('sent heartbeats', counts);
    return counts;
  };

/** The heartbeat on the service's ports (functions/runtime/ports/service-ports.ts): on AWS, or a local stack's. */
export const handlerOn = (
  p: Pick<
    ServicePorts,
    'connectionStore' | 'subscriptionStore' | 'clientConnections' | 'freshCredentialLookup'
  >,
) =>
  instrumented(
    createHandler({
      ports: () => ({
        connections: p.connectionStore(),
        subscriptions: p.subscriptionStore(),
        clients: p.clientConnections(),
      }),
      // No cache: each connection's key is read once per heartbeat, and a revocation must show at the next one.
      credentials: p.freshCredentialLookup,
    }),
  );

export const handler = handlerOn({
  connectionStore,
  subscriptionStore,
  clientConnections,
  freshCredentialLookup,
});

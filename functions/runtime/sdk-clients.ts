/**
 * Every AWS SDK client the functions make passes through `instrumentedClient` on its way out of
 * functions/runtime/. By default that changes nothing; functions/runtime/tracer.ts, when a Lambda entry
 * imports it (the `instrumented` entries of functions/runtime/lambda-handler.ts), installs X-Ray capture, so
 * those functions' traces show each DynamoDB, SQS and API Gateway call. REST handlers never import the tracer
 * and so never bundle the X-Ray SDK (docs/adr/0013-lean-lambda-bundles.md).
 *
 * Clients are made on first use, inside an invocation, long after every module has been evaluated: the
 * instrumentation is always installed before the first client exists.
 */
type ClientInstrumentation = <Client>(client: Client) => Client;

let instrumentation: ClientInstrumentation = (client) => client;

/** Sets what every client made from now on goes through (functions/runtime/tracer.ts calls it). */
export function instrumentClientsWith(instrument: ClientInstrumentation): void {
  instrumentation = instrument;
}

/**
 * How long an AWS SDK call of the functions may take: to connect, and in all (an attempt past it fails with a
 * `TimeoutError`, which the SDK retries). Without them a call whose connection went silent waits forever: in a
 * Lambda until the function's timeout, in the ingest consumer's long-running process for good, with its
 * windows stopped behind it. Far above a DynamoDB, SQS, Firehose or `@connections` call's own time. The SDK's
 * HTTP/1.1 handler only logs a warning at `requestTimeout` unless told to throw.
 */
export const SDK_CALL_TIMEOUTS = {
  connectionTimeout: 3_000,
  requestTimeout: 10_000,
  throwOnRequestTimeout: true,
} as const;

/**
 * A request handler's agents with `count` sockets per host: a client's calls in flight at most (the SDK's
 * default is 50; more wait for a socket).
 */
export function socketsPerHost(count: number) {
  return { httpAgent: { maxSockets: count }, httpsAgent: { maxSockets: count } } as const;
}

/**
 * The DynamoDB calls a process has in flight at most: an ingest commit's 64 ledger writes and 64 state puts
 * at once (functions/use-cases/ingest-trades.ts, functions/adapters/dynamo/strat-state-stores.ts), which the
 * SDK's default of 50 sockets would have queued.
 */
export const DYNAMO_CALLS_IN_FLIGHT = 128;

/** `client` as the runtime hands it to adapters: traced where the entry point traces. */
export function instrumentedClient<Client>(client: Client): Client {
  return instrumentation(client);
}

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

/** `client` as the runtime hands it to adapters: traced where the entry point traces. */
export function instrumentedClient<Client>(client: Client): Client {
  return instrumentation(client);
}

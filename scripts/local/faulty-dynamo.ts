import { createServer, request as forward } from 'node:http';
import type { AddressInfo } from 'node:net';
import { seededRandom } from '../lib/seeded-random.ts';

/** The DynamoDB calls that write: the ones a throttling fault is injected into. */
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

export interface DynamoFaults {
  /** The share of write calls (0..1) answered with a throttling error, without reaching the store. */
  readonly throttledWriteShare: number;
  /** Seeds the choice of calls, so a failing run can be repeated. */
  readonly seed?: number;
}

/**
 * A fault-injecting proxy in front of the local DynamoDB, for the fault-injection suite
 * (test/integration/fault-injection.test.ts): the handlers speak to it
 * as to DynamoDB, and it answers a share of their writes with ProvisionedThroughputExceededException, as
 * DynamoDB does under a hot partition, before the write reaches the store.
 */
export async function startFaultyDynamo(
  target: string,
  faults: DynamoFaults,
): Promise<{ endpoint: string; throttled: () => number; stop: () => Promise<void> }> {
  const random = seededRandom(faults.seed ?? 1); // the same seed throttles the same calls
  const upstream = new URL(target);
  let throttled = 0;
  const server = createServer((incoming, outgoing) => {
    const operation = String(incoming.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
    if (WRITES.has(operation) && random() < faults.throttledWriteShare) {
      throttled++;
      incoming.resume();
      outgoing.writeHead(400, { 'Content-Type': 'application/x-amz-json-1.0' }).end(
        JSON.stringify({
          __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
          message: 'The level of configured provisioned throughput for the table was exceeded (injected)',
        }),
      );
      return;
    }
    const proxied = forward(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (response) => {
        outgoing.writeHead(response.statusCode ?? 500, response.headers);
        response.pipe(outgoing);
      },
    );
    proxied.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    throttled: () => throttled,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

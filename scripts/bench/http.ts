import autocannon from 'autocannon';
import type { LocalStack } from '../local/stack.ts';

export type HttpFigures = {
  readonly 'requests/s': number;
  readonly 'p50 ms': number;
  readonly 'p99 ms': number;
  readonly 'non-2xx': number;
  readonly 'DynamoDB calls/request': number;
};

/**
 * Loads one URL of a running local stack with autocannon (keep-alive connections on loopback) and counts
 * the DynamoDB calls the stack made meanwhile.
 */
export async function loadUrl(
  stack: LocalStack,
  path: string,
  options: { connections?: number; seconds?: number; headers?: Record<string, string> } = {},
): Promise<HttpFigures> {
  const callsBefore = await stack.dynamoRequestCount();
  const result = await autocannon({
    url: `${stack.restUrl}${path}`,
    connections: options.connections ?? 10,
    duration: options.seconds ?? 5,
    headers: options.headers ?? { 'X-API-Key': stack.demoKey },
  });
  const requests = result.requests.total;
  return {
    'requests/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    'non-2xx': result.non2xx,
    'DynamoDB calls/request': Number(
      (((await stack.dynamoRequestCount()) - callsBefore) / Math.max(1, requests)).toFixed(2),
    ),
  };
}

import { startLocalStack } from '../local/stack.ts';
import { loadUrl } from './http.ts';
import type { BenchResult } from './types.ts';

/**
 * The REST path on the local stack: local gateway, authorizer (with its cache, as on AWS), handler and
 * dynalite, over loopback HTTP. A generous throttle so the benchmark measures the service, not the bucket.
 */
export async function benchRest(): Promise<BenchResult[]> {
  const stack = await startLocalStack({
    port: 0,
    dynamoPort: 0,
    throttle: { rateLimit: 1_000_000, burstLimit: 1_000_000 },
    logLevel: 'SILENT',
  });
  try {
    const results: BenchResult[] = [];
    for (const path of [
      '/market-status',
      '/instruments/AAPL',
      '/instruments?limit=200',
      '/instruments?search=A&limit=200',
    ]) {
      results.push({
        name: `GET ${path} (local stack, 10 connections)`,
        figures: await loadUrl(stack, path),
      });
    }
    return results;
  } finally {
    await stack.stop();
  }
}

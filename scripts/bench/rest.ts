import { startBenchStack } from './bench-stack.ts';
import { loadUrl } from './http.ts';
import type { BenchResult } from './types.ts';

/**
 * The REST path on the local stack: local gateway, authorizer (with its cache, as on AWS), handler and
 * dynalite, over loopback HTTP.
 */
export async function benchRest(): Promise<BenchResult[]> {
  const stack = await startBenchStack();
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

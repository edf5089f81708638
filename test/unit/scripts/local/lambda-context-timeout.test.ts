import { describe, expect, it } from 'vitest';
import { INGEST } from '#contracts/routes';
import { invokeLocally, lambdaContext } from '../../../../scripts/local/lambda-context.ts';

/**
 * A local invocation is cut short when it would be on AWS: with its function's deployed timeout. The ingest
 * function's is 60 s; with Lambda's default 10 s, a full batch on a busy machine timed out, was delivered
 * again while its work went on in the same process, and raced its own redelivery (the pipeline benchmark's
 * stall, docs/benchmarks.md#local-stack-loopback-http-dynalite-in-its-own-process).
 */
describe('the local Lambda context', () => {
  it("gives an invocation Lambda's default 10 s unless told the function's timeout", () => {
    expect(lambdaContext('rest').getRemainingTimeInMillis()).toBeLessThanOrEqual(10_000);
    expect(lambdaContext('rest').getRemainingTimeInMillis()).toBeGreaterThan(9_000);
  });

  it("gives the ingest invocation the ingest function's deployed timeout", async () => {
    const remaining = await invokeLocally(
      'ingest',
      async (context) => context.getRemainingTimeInMillis(),
      INGEST.timeoutSeconds * 1000,
    );
    expect(remaining).toBeGreaterThan(50_000);
  });
});

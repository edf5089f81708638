import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The local stack runs every handler in one process; each invocation's log context (its Lambda context and
 * the keys it appends) must stay its own, as in Lambda where an instance runs one invocation at a time.
 */
let lines: Record<string, unknown>[] = [];
const write = process.stdout.write.bind(process.stdout);
let modules: {
  instrumented: typeof import('#runtime/lambda-handler').instrumented;
  logger: typeof import('#runtime/logger').logger;
  invokeLocally: typeof import('../../../../scripts/local/lambda-context.ts').invokeLocally;
};

beforeAll(async () => {
  // The logger reads its level once, as a Lambda instance does: set it before the modules load.
  process.env.POWERTOOLS_LOG_LEVEL = 'INFO';
  modules = {
    instrumented: (await import('#runtime/lambda-handler')).instrumented,
    logger: (await import('#runtime/logger')).logger,
    invokeLocally: (await import('../../../../scripts/local/lambda-context.ts')).invokeLocally,
  };
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = String(chunk);
    if (text.startsWith('{"level"')) {
      lines.push(JSON.parse(text) as Record<string, unknown>);
      return true;
    }
    return write(chunk, ...(rest as []));
  }) as typeof process.stdout.write;
});
afterAll(() => {
  process.stdout.write = write;
  process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
});

const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

/** A handler that appends a key, waits (so another invocation runs meanwhile), and logs twice. */
const handler = (who: string) =>
  modules.instrumented(async () => {
    modules.logger.appendKeys({ who });
    await tick();
    modules.logger.info('working');
    await tick();
    modules.logger.info('done');
    return who;
  });

describe('invokeLocally', () => {
  it('keeps each of three concurrent invocations’ log context its own', async () => {
    lines = [];
    const { invokeLocally } = modules;
    const results = await Promise.all([
      invokeLocally('alpha', (context) => handler('alpha')({}, context)),
      invokeLocally('beta', (context) => handler('beta')({}, context)),
      invokeLocally('alpha', (context) => handler('alpha')({}, context)),
    ]);
    expect(results).toEqual(['alpha', 'beta', 'alpha']);
    expect(lines).toHaveLength(6);
    for (const line of lines) expect(line.function_name).toBe(line.who);
    expect(new Set(lines.map((line) => line.function_request_id)).size).toBe(3);
  });
});

describe('the local Lambda context', () => {
  it("gives an invocation its function's deployed timeout (the ingest's 60 s, not the default 10 s)", async () => {
    const { INGEST } = await import('#contracts/routes');
    const remaining = await modules.invokeLocally(
      'ingest',
      async (context) => context.getRemainingTimeInMillis(),
      INGEST.timeoutSeconds * 1000,
    );
    const byDefault = await modules.invokeLocally('rest', async (context) =>
      context.getRemainingTimeInMillis(),
    );
    expect(remaining).toBeGreaterThan(50_000);
    expect(byDefault).toBeLessThanOrEqual(10_000);
  });
});

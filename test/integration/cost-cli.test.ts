import { describe, expect, it } from 'vitest';
import { runScript } from '../support/processes.ts';

/** The cross-section (docs/storage.md#a-trading-day-on-paper). */
const MARKET_ARGS = [
  '--symbols',
  '8000',
  '--trades-per-day',
  '1e8',
  '--partners',
  '200',
  '--symbols-per-partner',
  '50',
];

const totalOf = (stdout: string) => Number(/^total per trading day: \$([\d.]+)$/m.exec(stdout)?.[1]);

describe('npm run cost: the designs it prices', () => {
  it('prices the stack as deployed, the windowed consumer, unless told otherwise', async () => {
    const [byDefault, named] = await Promise.all([
      runScript('scripts/cost.ts', MARKET_ARGS),
      runScript('scripts/cost.ts', [...MARKET_ARGS, '--design', 'deployed']),
    ]);
    expect(byDefault.code).toBe(0);
    expect(byDefault.stdout).toContain('Ingest consumer on Fargate');
    expect(byDefault.stdout).not.toContain('Ingest Lambda');
    expect(byDefault.stdout).toBe(named.stdout);
  });

  it('prices the Lambda with --design lambda, and its invocation length with --ingest-seconds', async () => {
    const [lambda, shorter] = await Promise.all([
      runScript('scripts/cost.ts', [...MARKET_ARGS, '--design', 'lambda']),
      runScript('scripts/cost.ts', [...MARKET_ARGS, '--design', 'lambda', '--ingest-seconds', '0.1']),
    ]);
    expect(lambda.stdout).toContain('Ingest Lambda');
    expect(lambda.stdout).not.toContain('Ingest consumer on Fargate');
    expect(totalOf(shorter.stdout)).toBeGreaterThan(totalOf(lambda.stdout));
  });

  it('refuses --ingest-seconds for the consumer, which has no invocations, in one line with exit code 2', async () => {
    const result = await runScript('scripts/cost.ts', [...MARKET_ARGS, '--ingest-seconds', '0.1']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim()).toBe(
      'cost: --ingest-seconds prices the ingest Lambda’s invocations: it needs --design lambda',
    );
    expect(result.stdout).toBe('');
  });
});

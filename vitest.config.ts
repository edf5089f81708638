import { configDefaults, defineConfig } from 'vitest/config';

/**
 * The slow integration tests: each starts what it tests as processes or faults it, and times what it
 * checks against the wall clock (a stop within 5 s), so they run one at a time, apart from the others.
 * Fault injection and redelivery, `npm start` stopped, killed and started again, the console in Chromium.
 */
const SLOW_INTEGRATION = [
  'test/integration/fault-injection.test.ts',
  'test/integration/ingest-counts.test.ts',
  'test/integration/local-stack-stop.test.ts',
  'test/integration/local-stack-cli.test.ts',
  'test/integration/console.test.ts',
];

const integration = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
};

// Each tier runs in its own `npm run test:*`; a plain `vitest run` runs them in this order too (groupOrder:
// vitest wants one per distinct worker count).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          sequence: { groupOrder: 0 },
          include: ['test/unit/**/*.test.ts'],
          // Two files at a time, as on CI's 2 cores (vitest's default there is one worker).
          maxWorkers: 2,
          env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true' },
        },
      },
      {
        test: {
          name: 'infra',
          sequence: { groupOrder: 1 },
          include: ['test/infra/**/*.test.ts'],
          // Files share modules, so the service stack is synthesized once per worker and context
          // (test/infra/support/service-stack.ts), into one directory made for the run.
          isolate: false,
          globalSetup: ['test/infra/support/cdk-outdir.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'integration',
          sequence: { groupOrder: 2 },
          include: ['test/integration/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SLOW_INTEGRATION],
          // Each file starts its own local stack on free ports. The files mostly wait on sockets and timers,
          // so two run at a time; and they share modules (isolate: false), so a worker loads the handlers, the
          // AWS SDK and the local stack's parts once, not once per file (one process may hold several
          // stacks: docs/adr/0007-handler-wiring-and-local-stack.md).
          maxWorkers: 2,
          isolate: false,
          ...integration,
        },
      },
      {
        test: {
          name: 'integration-slow',
          sequence: { groupOrder: 3 },
          include: SLOW_INTEGRATION,
          fileParallelism: false,
          ...integration,
        },
      },
    ],
  },
});

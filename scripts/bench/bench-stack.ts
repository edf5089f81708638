import { type LocalStack, startLocalStack } from '../local/stack.ts';

/**
 * The local stack a benchmark measures: in memory, silent, with a REST throttle no benchmark reaches (it
 * measures the service, not the bucket), and, given `clockStart`, the service clock from there at real speed.
 */
export function startBenchStack(clockStart?: Date): Promise<LocalStack> {
  return startLocalStack({
    port: 0,
    dynamoPort: 0,
    ...(clockStart === undefined ? {} : { clock: { start: clockStart, speed: 1 } }),
    throttle: { rateLimit: 1_000_000, burstLimit: 1_000_000 },
    logLevel: 'SILENT',
  });
}

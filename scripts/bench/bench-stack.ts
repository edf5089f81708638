import { type IngestMode, ingestModeNamed, type LocalStack, startLocalStack } from '../local/stack.ts';

/**
 * The local stack a benchmark measures: in memory, silent, with a REST throttle no benchmark reaches (it
 * measures the service, not the bucket), and, given `clockStart`, the service clock from there at real speed.
 * `ingest`: what ingests its trades (`--ingest`, ingestModeOf).
 */
export function startBenchStack(clockStart?: Date, ingest: IngestMode = 'lambda'): Promise<LocalStack> {
  return startLocalStack({
    port: 0,
    dynamoPort: 0,
    ingest,
    ...(clockStart === undefined ? {} : { clock: { start: clockStart, speed: 1 } }),
    throttle: { rateLimit: 1_000_000, burstLimit: 1_000_000 },
    logLevel: 'SILENT',
  });
}

/**
 * `--ingest lambda|windows` among a benchmark's options: what ingests its stack's trades, the ingest Lambda's
 * handler as deployed (the default) or the windowed consumer (docs/adr/0026-long-running-ingest-consumer.md).
 */
export function ingestModeOf(options: readonly string[]): IngestMode {
  const at = options.indexOf('--ingest');
  return at === -1 ? 'lambda' : ingestModeNamed(options[at + 1], `--ingest ${options[at + 1]}`);
}

import { type IngestDesign, ingestDesignNamed } from '#contracts/ingest-consumer';
import { type LocalStack, startLocalStack } from '../local/stack.ts';

/**
 * The local stack a benchmark measures: in memory, silent, with a REST throttle no benchmark reaches (it
 * measures the service, not the bucket), and, given `clockStart`, the service clock from there at real speed.
 * `ingest`: what ingests its trades (`--ingest`, ingestDesignOf).
 */
export function startBenchStack(clockStart?: Date, ingest?: IngestDesign): Promise<LocalStack> {
  return startLocalStack({
    port: 0,
    dynamoPort: 0,
    ...(ingest === undefined ? {} : { ingest }),
    ...(clockStart === undefined ? {} : { clock: { start: clockStart, speed: 1 } }),
    throttle: { rateLimit: 1_000_000, burstLimit: 1_000_000 },
    logLevel: 'SILENT',
  });
}

/**
 * `--ingest windows|lambda` among a benchmark's options: what ingests its stack's trades, the windowed consumer
 * (the default) or the ingest Lambda's handler (docs/adr/0026-long-running-ingest-consumer.md).
 */
export function ingestDesignOf(options: readonly string[]): IngestDesign {
  const at = options.indexOf('--ingest');
  const named = at === -1 ? undefined : (options[at + 1] ?? '');
  return ingestDesignNamed(named, `--ingest ${named || '(no value)'}`);
}

import type { Context } from 'aws-lambda';
import { INGEST_WINDOWS } from '#contracts/ingestion';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { recordMetric } from '#runtime/metrics';
import { type ShardCheckpoints, WindowedIngest, type WindowOutcome } from '#use-cases/ingest-windows';
import type { QuotePush } from '#use-cases/push-quotes';
import {
  type IngestServicePorts,
  ingestPortsOn,
  quotePushOn,
  recordIngestMetrics,
  recordQuotePush,
} from './service-ports.ts';
import { type TradeWindow, WindowNotTaken, type WindowResult } from './window-event.ts';

/**
 * The windowed ingest consumer's window (docs/adr/0026-long-running-ingest-consumer.md): the trades every shard
 * brought since the window before, folded and their quotes posted at once, each symbol's commit at most once
 * per INGEST_WINDOWS.commitIntervalMs (functions/use-cases/ingest-windows.ts). Its metrics are the ingest
 * Lambda's, by window instead of by batch: IngestWait to the window's start, TradeToPost to its quotes,
 * IngestLag to its commits.
 */
export const createWindowHandler = (deps: {
  ingest: () => Promise<WindowedIngest>;
  /** A new push of this window's quotes, or undefined where nobody streams. */
  quotes: () => QuotePush | undefined;
  nowMs: () => number;
}) => {
  /** What some commits came to: the counts, the lag to them, and a log line when they committed anything. */
  const reportCommits = (
    outcome: Omit<WindowOutcome, 'quotes' | 'poison'> & { poison?: number },
    context: { records: number; backlog: number },
  ): void => {
    const poison = outcome.poison ?? 0;
    recordIngestMetrics(outcome.committed, { ...context, poison, deadLettered: outcome.deadLettered });
    if (outcome.oldestCommittedMs !== undefined)
      recordMetric('ingestLag', deps.nowMs() - outcome.oldestCommittedMs);
    if (outcome.committed === undefined && poison === 0) return;
    const { future: _future, ...counts } = outcome.committed ?? {};
    const warns = outcome.deadLettered + poison > 0;
    (warns ? logger.warn : logger.info).call(logger, 'ingested a window', { ...context, ...counts, poison });
  };
  return async ({ records, final }: TradeWindow): Promise<WindowOutcome & WindowResult> => {
    let ingest: WindowedIngest;
    let quotes: QuotePush | undefined;
    try {
      ingest = await deps.ingest();
      quotes = deps.quotes();
    } catch (error) {
      throw new WindowNotTaken(error);
    }
    const startedMs = deps.nowMs();
    const window = await ingest.window(records, quotes);
    if (window.oldestTakenMs !== undefined) recordMetric('ingestWait', startedMs - window.oldestTakenMs);
    if (quotes && quotes.tally.quotes > 0) recordQuotePush(quotes.tally);
    reportCommits(window, { records: records.length, backlog: ingest.backlog });
    if (final) reportCommits(await ingest.drain(), { records: 0, backlog: ingest.backlog });
    return { ...window, backlog: ingest.backlog };
  };
};

/**
 * The window handler on the service's ports (functions/runtime/ports/service-ports.ts), one consumer for the
 * process's life: its ledgers are remembered between windows. `checkpoints`: where its shard positions go.
 */
export const windowHandlerOn = (
  p: IngestServicePorts & { readonly checkpoints: ShardCheckpoints; readonly wallClockMs: () => number },
) => {
  let consumer: Promise<WindowedIngest> | undefined;
  const handle = createWindowHandler({
    ingest: () => {
      if (consumer === undefined) {
        consumer = (async () =>
          new WindowedIngest(
            { ...(await ingestPortsOn(p)), deadLetters: p.deadLetterSink(), checkpoints: p.checkpoints },
            {
              commitIntervalMs: INGEST_WINDOWS.commitIntervalMs,
              windowMs: INGEST_WINDOWS.windowMs,
              wallClockMs: p.wallClockMs,
            },
          ))();
        // Made again by the next window when it failed (the universe could not be read, say).
        consumer.catch(() => {
          consumer = undefined;
        });
      }
      return consumer;
    },
    quotes: () => quotePushOn(p, INGEST_WINDOWS.postConcurrency),
    nowMs: p.nowMs,
  });
  return instrumented((window: TradeWindow, _context: Context) => handle(window));
};

import type { PriceMove, QuotePublisher } from '#domain/market-data/ports';
import { quoteEventOf } from '#domain/streaming/channel-events';
import type { UsageRow, UsageSink } from '#domain/streaming/ports';
import {
  type FanOutOutcome,
  type FanOutPorts,
  fanOut,
  reason,
  type SubscriberLookups,
  subscribersOnce,
} from './fan-out.ts';

/** What the quotes of one ingest batch came to, for its metrics and log. */
export interface QuotePushTally {
  /** Quotes published: one per committed price move. */
  quotes: number;
  /** Quotes pushed to a connection (each a usage row), and the frames that carried them. */
  sent: number;
  frames: number;
  gone: number;
  closed: number;
  withheld: number;
  /** Quotes that did not reach every subscriber (a post or a lookup failed); not pushed again. */
  failed: number;
  /** The usage rows of messages sent that the sink could not record, each kept whole for the log. */
  readonly unrecordedRows: UsageRow[];
  readonly errors: string[];
  /** The oldest trade behind a quote sent, and when the last posts were done: the trade-to-post hop. */
  oldestTradeMs?: number;
  postedAtMs?: number;
}

/** A tally of no quotes yet. */
export const emptyQuotePushTally = (): QuotePushTally => ({
  quotes: 0,
  sent: 0,
  frames: 0,
  gone: 0,
  closed: 0,
  withheld: 0,
  failed: 0,
  unrecordedRows: [],
  errors: [],
});

/**
 * The quotes of one ingest batch (docs/adr/0024-quotes-posted-by-the-ingest.md): each committed price move
 * pushed to the connections subscribed to its symbol, by the fan-out's own delivery (functions/use-cases/
 * fan-out.ts: one frame per quote, or one per connection for its batched quotes, subscribers' access
 * checked, gone connections cleaned up, one usage row per quote sent). Unlike a stream record, a quote is
 * never delivered again: the ledger is committed whatever its pushes come to, and the next quote (or
 * `/prices/latest`) replaces one that failed. So a failure is
 * counted in the tally, and usage rows the sink could not record are kept in it whole, to be logged: a
 * partner's message is never left unbilled without a trace.
 */
export class QuotePush implements QuotePublisher {
  readonly tally: QuotePushTally = emptyQuotePushTally();
  private readonly ports: FanOutPorts;
  /** The subscriber lookups started by prepare(), by topic key; publish() finishes them. */
  private readonly lookups: SubscriberLookups = new Map();

  constructor(ports: FanOutPorts) {
    const sink = ports.usage;
    const usage: UsageSink = {
      record: async (rows) => {
        const unrecorded = await sink.record(rows);
        for (const { rows: lost } of unrecorded) this.tally.unrecordedRows.push(...lost);
        return unrecorded;
      },
    };
    this.ports = { ...ports, usage };
  }

  prepare(symbols: readonly string[]): void {
    for (const symbol of symbols) {
      const found = subscribersOnce(this.lookups, this.ports.subscriptions, { channel: 'quotes', symbol });
      // Awaited when published; a lookup no quote awaits (its commit lost) is no unhandled rejection.
      found.catch(() => undefined);
    }
  }

  async publish(moves: readonly PriceMove[]): Promise<void> {
    const events = moves.map(quoteEventOf);
    const outcome: FanOutOutcome = await fanOut(events, this.ports, this.lookups).catch((error: unknown) => ({
      failed: events.map((_, index) => index),
      sent: 0,
      frames: 0,
      gone: 0,
      closed: 0,
      withheld: 0,
      usageUnrecorded: 0,
      errors: [reason(error)],
    }));
    const tally = this.tally;
    tally.quotes += events.length;
    tally.sent += outcome.sent;
    tally.frames += outcome.frames;
    tally.gone += outcome.gone;
    tally.closed += outcome.closed;
    tally.withheld += outcome.withheld;
    tally.failed += outcome.failed.length;
    tally.errors.push(...outcome.errors);
    if (outcome.sent > 0) {
      const oldest = Math.min(...moves.map(({ timestamp }) => timestamp));
      tally.oldestTradeMs = Math.min(tally.oldestTradeMs ?? oldest, oldest);
      tally.postedAtMs = this.ports.nowMs();
    }
  }
}

import type { KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import type { Trade } from '#domain/market-data/bars';
import { decodeTradeRecord } from '#domain/market-data/trade-records';
import { clock } from '#runtime/clock';
import { logger } from '#runtime/logger';
import { barStore, ledgerStore, priceStore, universe } from '#runtime/ports/market-data';
import { alertFeed, breakFeed, setupStore, stateStore } from '#runtime/ports/strat';
import { type IngestPorts, ingestTrades } from '#use-cases/ingest-trades';

/**
 * The ingest Lambda (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-ingest-lambda): one
 * Kinesis batch of trades, folded into prices, ledgers and bars. A record that is not a trade is logged and
 * skipped: it could never succeed, and must not block the shard. A symbol whose ledger write lost a race is
 * reported as a batch item failure from its first record, so Lambda delivers it again (the ledger's watermark
 * skips what was applied).
 */
export const createHandler =
  (deps: { ports: () => Promise<IngestPorts> }) =>
  async (event: KinesisStreamEvent): Promise<KinesisStreamBatchResponse> => {
    const trades: Trade[] = [];
    const firstSequence = new Map<string, string>();
    let poison = 0;
    for (const record of event.Records) {
      const trade = decodeTradeRecord(Buffer.from(record.kinesis.data, 'base64').toString('utf8'));
      if (!trade) {
        poison++;
        logger.warn('skipped a record that is not a trade', {
          sequenceNumber: record.kinesis.sequenceNumber,
        });
        continue;
      }
      trades.push(trade);
      if (!firstSequence.has(trade.symbol)) firstSequence.set(trade.symbol, record.kinesis.sequenceNumber);
    }

    const outcome = await ingestTrades(trades, await deps.ports());
    logger.info('ingested a batch', { records: event.Records.length, poison, ...outcome });
    return {
      batchItemFailures: outcome.failedSymbols.flatMap((symbol) => {
        const itemIdentifier = firstSequence.get(symbol);
        return itemIdentifier ? [{ itemIdentifier }] : [];
      }),
    };
  };

export const handler = createHandler({
  ports: async () => {
    const instruments = await universe();
    return {
      ledgers: ledgerStore(),
      bars: barStore(),
      prices: priceStore(),
      alerts: alertFeed(),
      breaks: breakFeed(),
      states: stateStore(),
      setups: setupStore(),
      sectorOf: (symbol: string) => instruments.get(symbol)?.sector ?? '',
      nowMs: () => clock()().getTime(),
    };
  },
});

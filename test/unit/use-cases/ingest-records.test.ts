import { describe, expect, it } from 'vitest';
import { encodeTradeRecord } from '#domain/market-data/trade-records';
import { ingestRecords, type TradeStreamRecord } from '#use-cases/ingest-records';
import { deadLetterSink, inMemoryIngestPorts, losingLedgers } from '../../support/fakes.ts';

const open = Date.parse('2024-11-26T14:30:00Z');
const future = Date.parse('2030-01-02T15:00:00Z');

const trade = (symbol: string, timestamp: number, tradeId: string) => ({
  symbol,
  price: 100,
  size: 1,
  timestamp,
  tradeId,
});

/** The records in order, numbered from 1000 like a shard's sequence numbers. */
const records = (...items: { partitionKey: string; data: string }[]): TradeStreamRecord[] =>
  items.map((item, index) => ({ ...item, sequenceNumber: String(1000 + index) }));

const single = (symbol: string, timestamp: number, tradeId: string) => ({
  partitionKey: symbol,
  data: encodeTradeRecord(trade(symbol, timestamp, tradeId)),
});

describe('ingestRecords', () => {
  it('dead-letters a poison record whole and a future trade alone, in one put, and applies the rest', async () => {
    const ports = inMemoryIngestPorts(open + 60_000);
    const { sink, letters, puts } = deadLetterSink();
    const batch = [trade('AAPL', open, '1'), trade('AAPL', future, '2')];

    const result = await ingestRecords(
      records(
        { partitionKey: 'MSFT', data: 'not json' },
        { partitionKey: 'AAPL', data: JSON.stringify(batch) },
      ),
      ports,
      sink,
    );

    expect(puts()).toBe(1);
    expect(letters).toEqual([
      {
        reason: 'poison',
        detail: 'not a trade record',
        partitionKey: 'MSFT',
        sequenceNumber: '1000',
        data: 'not json',
      },
      {
        reason: 'future',
        detail: 'stamped 2030-01-02T15:00:00.000Z, after the service clock',
        partitionKey: 'AAPL',
        sequenceNumber: '1001',
        data: encodeTradeRecord(trade('AAPL', future, '2')),
      },
    ]);
    expect(result).toMatchObject({ poison: 1, deadLettered: 2, retrySequenceNumbers: [] });
    expect(result.outcome.applied).toBe(1);
    expect((await ports.ledgers.get('AAPL'))?.ledger.lastTrade?.tradeId).toBe('1');
  });

  it('maps a symbol whose ledger write lost a race to the sequence number of its first record', async () => {
    const ports = inMemoryIngestPorts(open + 60_000);
    const racing = { ...ports, ledgers: losingLedgers(ports.ledgers, 'AAPL') };

    const result = await ingestRecords(
      records(
        single('MSFT', open, '1'),
        single('AAPL', open, '2'),
        single('AAPL', open + 1_000, '3'),
        single('MSFT', open + 1_000, '4'),
      ),
      racing,
      deadLetterSink().sink,
    );

    expect(result.outcome.failedSymbols).toEqual(['AAPL']);
    expect(result.retrySequenceNumbers).toEqual(['1001']);
    expect((await ports.ledgers.get('MSFT'))?.ledger.lastTrade?.tradeId).toBe('4');
  });

  it('puts nothing when nothing is refused, and gives the oldest trade’s time, amendments aside', async () => {
    const ports = inMemoryIngestPorts(open + 60_000);
    await ingestRecords(records(single('AAPL', open + 30_000, '1')), ports, deadLetterSink().sink);
    const { sink, puts } = deadLetterSink();
    const amendment = { symbol: 'AAPL', amends: '1', timestamp: open + 30_000, cancel: true };

    const result = await ingestRecords(
      records({ partitionKey: 'AAPL', data: JSON.stringify(amendment) }, single('AAPL', open + 45_000, '2')),
      ports,
      sink,
    );

    expect(puts()).toBe(0);
    expect(result).toMatchObject({ poison: 0, deadLettered: 0, oldestTradeMs: open + 45_000 });
    expect(result.outcome.amendmentsApplied).toBe(1);
  });

  it('has no oldest trade for a batch of amendments only (no lag to record)', async () => {
    const ports = inMemoryIngestPorts(open + 60_000);
    await ingestRecords(records(single('AAPL', open + 30_000, '1')), ports, deadLetterSink().sink);
    const amendment = { symbol: 'AAPL', amends: '1', timestamp: open + 30_000, cancel: true };
    const result = await ingestRecords(
      records({ partitionKey: 'AAPL', data: JSON.stringify(amendment) }),
      ports,
      deadLetterSink().sink,
    );
    expect(result.outcome.amendmentsApplied).toBe(1);
    expect(result.oldestTradeMs).toBeUndefined();
  });

  it('has no oldest trade for an empty batch', async () => {
    const result = await ingestRecords([], inMemoryIngestPorts(open), deadLetterSink().sink);
    expect(result).toMatchObject({
      poison: 0,
      deadLettered: 0,
      oldestTradeMs: undefined,
      retrySequenceNumbers: [],
    });
  });
});

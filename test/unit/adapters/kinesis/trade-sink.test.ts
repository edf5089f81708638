import { KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { KinesisTradeSink } from '#adapters/kinesis/trade-sink';
import type { Trade } from '#domain/market-data/bars';
import { decodeTradeRecord, TRADES_PER_RECORD } from '#domain/market-data/trade-records';

const kinesis = mockClient(KinesisClient);
const trade = (symbol: string, index: number): Trade => ({
  symbol,
  price: 100 + index,
  size: 1,
  timestamp: 1_732_631_400_000 + index,
  tradeId: String(index).padStart(6, '0'),
});

afterEach(() => kinesis.reset());

type Put = { PartitionKey?: string; Data?: Uint8Array };
const tradesOf = (record: Put | undefined) =>
  decodeTradeRecord(Buffer.from(record?.Data ?? []).toString('utf8'));

describe('KinesisTradeSink', () => {
  it('groups each symbol’s trades into records of up to a hundred, one record per symbol per call, in order', async () => {
    kinesis.on(PutRecordsCommand).resolves({ Records: [] });
    const trades = Array.from({ length: 250 }, (_, index) => trade(index % 2 ? 'AAPL' : 'ES1!', index));
    await new KinesisTradeSink(new KinesisClient({}), 'trades').put(trades);

    const calls = kinesis.commandCalls(PutRecordsCommand).map((call) => call.args[0].input.Records ?? []);
    expect(calls.map((records) => records.map(({ PartitionKey }) => PartitionKey))).toEqual([
      ['ES1!', 'AAPL'],
      ['ES1!', 'AAPL'],
    ]);
    expect(tradesOf(calls[0]?.[0])).toEqual(
      trades.filter(({ symbol }) => symbol === 'ES1!').slice(0, TRADES_PER_RECORD),
    );
    expect(calls.flat().flatMap((record) => tradesOf(record) ?? [])).toHaveLength(250);
  });

  it('sends a failed record again before anything later of its symbol, and never resends one that landed', async () => {
    kinesis
      .on(PutRecordsCommand)
      .resolvesOnce({
        FailedRecordCount: 1,
        Records: [{ ErrorCode: 'ProvisionedThroughputExceededException' }, {}],
      })
      .resolves({ Records: [] });
    const trades = [
      ...Array.from({ length: 150 }, (_, index) => trade('AAPL', index)),
      ...Array.from({ length: 3 }, (_, index) => trade('MSFT', 200 + index)),
    ];

    await new KinesisTradeSink(new KinesisClient({}), 'trades').put(trades);

    const calls = kinesis.commandCalls(PutRecordsCommand).map((call) => call.args[0].input.Records ?? []);
    const landed = [calls[0]?.[1], ...calls.slice(1).flat()];
    const aapl = landed
      .filter((record) => record?.PartitionKey === 'AAPL')
      .flatMap((record) => tradesOf(record) ?? []);
    expect(aapl).toEqual(trades.slice(0, 150));
    expect(landed.filter((record) => record?.PartitionKey === 'MSFT')).toHaveLength(1);
  });

  it('gives up, saying how many trades are unsent, when calls keep failing', async () => {
    kinesis.on(PutRecordsCommand).resolves({ Records: [{ ErrorCode: 'InternalFailure' }] });
    await expect(
      new KinesisTradeSink(new KinesisClient({}), 'trades', async () => {}).put([
        trade('AAPL', 1),
        trade('AAPL', 2),
      ]),
    ).rejects.toThrow('2 trades left unsent');
  });
});

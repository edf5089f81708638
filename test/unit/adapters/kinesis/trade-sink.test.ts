import { KinesisClient, PutRecordsCommand } from '@aws-sdk/client-kinesis';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { KinesisTradeSink } from '#adapters/kinesis/trade-sink';
import { decodeTradeRecord } from '#domain/market-data/trade-records';

const kinesis = mockClient(KinesisClient);
const trades = Array.from({ length: 600 }, (_, index) => ({
  symbol: index % 2 ? 'AAPL' : 'ES1!',
  price: 100 + index,
  size: 1,
  timestamp: 1_732_631_400_000 + index,
  tradeId: String(index).padStart(6, '0'),
}));

afterEach(() => kinesis.reset());

describe('KinesisTradeSink', () => {
  it('puts at most 500 records per call, partitioned by symbol, in order', async () => {
    kinesis.on(PutRecordsCommand).resolves({ Records: [] });
    await new KinesisTradeSink(new KinesisClient({}), 'trades').put(trades);

    const calls = kinesis.commandCalls(PutRecordsCommand).map((call) => call.args[0].input);
    expect(calls.map((input) => input.Records?.length)).toEqual([500, 100]);
    const first = calls[0]?.Records?.[0];
    expect(first?.PartitionKey).toBe('ES1!');
    expect(decodeTradeRecord(Buffer.from(first?.Data ?? []).toString('utf8'))).toEqual(trades[0]);
  });

  it('resends from the first failed record so nothing overtakes it', async () => {
    kinesis
      .on(PutRecordsCommand)
      .resolvesOnce({
        FailedRecordCount: 1,
        Records: [{}, { ErrorCode: 'ProvisionedThroughputExceededException' }, {}],
      })
      .resolves({ Records: [] });

    await new KinesisTradeSink(new KinesisClient({}), 'trades').put(trades.slice(0, 3));

    const calls = kinesis.commandCalls(PutRecordsCommand).map((call) => call.args[0].input.Records?.length);
    expect(calls).toEqual([3, 2]);
  });
});

import { describe, expect, it } from 'vitest';
import type { UsageRow } from '#domain/streaming/ports';
import { packUsageRecords, parseUsageLines, usageLine } from '#domain/streaming/usage-records';

const row = (overrides: Partial<UsageRow> = {}): UsageRow => ({
  accountId: 'acme',
  keyId: 'key-1',
  channel: 'quotes',
  symbol: 'AAPL',
  time: '2024-11-26T15:30:01.500Z',
  messageId: '2024-11-26T15:30:00.000Z#ev-1',
  ...overrides,
});

describe('usage records', () => {
  it('writes a row as one line of JSON with its type, read back as the same row', () => {
    const breakRow = row({ channel: 'alerts.simultaneous_breaks', symbol: undefined, messageId: 'x#ev-2' });
    const { symbol: _none, ...withoutSymbol } = breakRow;

    expect(usageLine(row())).toBe(
      '{"type":"ws_message","accountId":"acme","keyId":"key-1","channel":"quotes","symbol":"AAPL",' +
        '"time":"2024-11-26T15:30:01.500Z","messageId":"2024-11-26T15:30:00.000Z#ev-1"}\n',
    );
    expect(parseUsageLines(usageLine(row()) + usageLine(withoutSymbol))).toEqual({
      rows: [row(), withoutSymbol],
      unreadable: 0,
    });
  });

  it('packs whole lines into records within the size, and a row too long for one into its own', () => {
    const rows = Array.from({ length: 10 }, (_, index) => row({ messageId: `m${index}` }));
    const lineBytes = Buffer.byteLength(usageLine(rows[0] as UsageRow));

    const records = packUsageRecords(rows, lineBytes * 3 + 1);

    expect(records.map((record) => record.rows.length)).toEqual([3, 3, 3, 1]);
    expect(records.every((record) => record.bytes === Buffer.byteLength(record.data))).toBe(true);
    expect(records.map((record) => record.data).join('')).toBe(rows.map(usageLine).join(''));
    expect(packUsageRecords(rows.slice(0, 2), 10).map((record) => record.rows.length)).toEqual([1, 1]);
  });

  it('counts the lines that are not rows instead of failing the read', () => {
    const text = `${usageLine(row())}not json\n{"type":"other"}\n\n${usageLine(row({ messageId: 'm2' }))}`;

    expect(parseUsageLines(text)).toEqual({ rows: [row(), row({ messageId: 'm2' })], unreadable: 2 });
  });
});

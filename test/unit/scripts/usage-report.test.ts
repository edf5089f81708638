import { describe, expect, it } from 'vitest';
import { countPushedMessages, daysBetween, formatUsage } from '../../../scripts/lib/usage-report.ts';

const row = (time: string, channel = 'quotes', accountId = 'acme', keyId = 'k1') => ({
  accountId,
  keyId,
  channel,
  time,
  messageId: `${time}#${channel}`,
});

describe('the usage report', () => {
  it('counts pushed messages per UTC day, account, key and channel, in that order', () => {
    expect(
      countPushedMessages([
        row('2024-11-02T00:00:00.000Z'),
        row('2024-11-01T23:59:59.999Z'),
        row('2024-11-01T10:00:00.000Z'),
        row('2024-11-01T10:00:00.000Z', 'states'),
        row('2024-11-01T10:00:00.000Z', 'quotes', 'acme', 'k0'),
      ]),
    ).toEqual([
      { date: '2024-11-01', account: 'acme', keyId: 'k0', channel: 'quotes', messages: 1 },
      { date: '2024-11-01', account: 'acme', keyId: 'k1', channel: 'quotes', messages: 2 },
      { date: '2024-11-01', account: 'acme', keyId: 'k1', channel: 'states', messages: 1 },
      { date: '2024-11-02', account: 'acme', keyId: 'k1', channel: 'quotes', messages: 1 },
    ]);
  });

  it('lists the days of a range, month ends included', () => {
    expect(daysBetween('2024-11-29', '2024-12-02')).toEqual([
      '2024-11-29',
      '2024-11-30',
      '2024-12-01',
      '2024-12-02',
    ]);
  });

  it('writes the CSV blocks with their exact headers', () => {
    const out = formatUsage(
      {
        webSocket: [{ date: '2024-11-01', account: 'acme', keyId: 'k1', channel: 'quotes', messages: 3 }],
        rest: [{ date: '2024-11-01', account: 'acme', keyId: 'k1', requests: 7 }],
      },
      'csv',
    );
    expect(out).toBe(
      'date,account,key_id,channel,messages\n2024-11-01,acme,k1,quotes,3\n\ndate,account,key_id,requests\n2024-11-01,acme,k1,7\n',
    );
  });
});

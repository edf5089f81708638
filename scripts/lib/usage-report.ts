/** One `ws_message` usage row, as the report reads it (functions/domain/streaming/usage-records.ts). */
export interface PushedMessage {
  readonly accountId: string;
  readonly keyId: string;
  readonly channel: string;
  /** When it was pushed, ISO 8601. */
  readonly time: string;
  /** One per (account, event): the report counts each (accountId, messageId) once. */
  readonly messageId: string;
}

export interface WebSocketUsage {
  readonly date: string;
  readonly account: string;
  readonly keyId: string;
  readonly channel: string;
  readonly messages: number;
}

export interface RestUsage {
  readonly date: string;
  readonly account: string;
  readonly keyId: string;
  readonly requests: number;
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Pushed messages counted per day (UTC), account, key and channel, in that order. */
export function countPushedMessages(rows: readonly PushedMessage[]): WebSocketUsage[] {
  const counts = new Map<string, WebSocketUsage>();
  for (const row of rows) {
    const date = row.time.slice(0, 10);
    const key = [date, row.accountId, row.keyId, row.channel].join('\u0000');
    const current = counts.get(key);
    counts.set(key, {
      date,
      account: row.accountId,
      keyId: row.keyId,
      channel: row.channel,
      messages: (current?.messages ?? 0) + 1,
    });
  }
  return [...counts.values()].sort(
    (a, b) =>
      compare(a.date, b.date) ||
      compare(a.account, b.account) ||
      compare(a.keyId, b.keyId) ||
      compare(a.channel, b.channel),
  );
}

/** The days from `from` to `to`, inclusive (`YYYY-MM-DD`, UTC). */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let ms = Date.parse(`${from}T00:00:00Z`); ms <= Date.parse(`${to}T00:00:00Z`); ms += 86_400_000) {
    days.push(new Date(ms).toISOString().slice(0, 10));
  }
  return days;
}

function csv(header: string, rows: readonly (readonly (string | number)[])[]): string {
  return [header, ...rows.map((row) => row.join(','))].join('\n');
}

function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => String(row[column]).length)),
  );
  const line = (cells: readonly (string | number)[]) =>
    cells
      .map((cell, column) => String(cell).padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

/**
 * The report (docs/operations.md#usage-report): the WebSocket block (CSV columns
 * `date,account,key_id,channel,messages`), then, after a blank line, the REST block
 * (`date,account,key_id,requests`).
 */
export function formatUsage(
  usage: { readonly webSocket: readonly WebSocketUsage[]; readonly rest: readonly RestUsage[] },
  format: 'table' | 'csv',
): string {
  const ws = usage.webSocket.map((row) => [row.date, row.account, row.keyId, row.channel, row.messages]);
  const rest = usage.rest.map((row) => [row.date, row.account, row.keyId, row.requests]);
  if (format === 'csv') {
    return `${csv('date,account,key_id,channel,messages', ws)}\n\n${csv('date,account,key_id,requests', rest)}\n`;
  }
  return (
    `WebSocket messages pushed\n${table(['date', 'account', 'key_id', 'channel', 'messages'], ws)}\n\n` +
    `REST requests\n${table(['date', 'account', 'key_id', 'requests'], rest)}\n`
  );
}

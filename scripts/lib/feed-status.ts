import type { FeedStatus } from '#runtime/feed-service';

/**
 * One line: connected, trades/s since the last line, what was put, gaps, reconnects, drops, and the
 * amendments applied to trades still held or forwarded to the ingest path.
 */
export function statusLine(status: FeedStatus, previousPut: number, seconds: number): string {
  const { totals } = status;
  const rate = seconds > 0 ? (totals.put - previousPut) / seconds : 0;
  const dropped = Object.entries(totals.dropped)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  return [
    `feed: ${status.connected ? 'connected' : 'not connected'}`,
    `${rate.toFixed(1)} trades/s`,
    `${totals.put} put`,
    `gaps ${totals.gaps} (${totals.gapsFilled} filled)`,
    `reconnects ${totals.reconnects}`,
    ...(dropped ? [`dropped: ${dropped}`] : []),
    ...(totals.amendmentsApplied + totals.amendmentsForwarded > 0
      ? [`amendments: ${totals.amendmentsApplied} applied, ${totals.amendmentsForwarded} forwarded`]
      : []),
  ].join(' | ');
}

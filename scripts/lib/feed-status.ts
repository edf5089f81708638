import type { FeedStatus } from '#runtime/feed-service';

/**
 * One line: connected, trades/s since the last line, what was put (and of it, how many prints the LULD band
 * held back to volume only), gaps, reconnects, drops.
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
    ...(totals.outsideBand > 0 ? [`outside band ${totals.outsideBand} (volume only)`] : []),
    `gaps ${totals.gaps} (${totals.gapsFilled} filled)`,
    `reconnects ${totals.reconnects}`,
    ...(dropped ? [`dropped: ${dropped}`] : []),
  ].join(' | ');
}

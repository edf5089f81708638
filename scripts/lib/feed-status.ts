import { describeFeeds, type FeedStatus } from '#containers/feed-connector/service';

/**
 * One line: each feed's connection (connected, or reconnecting since when, a gap open since when), trades/s
 * since the last line, what was put (and of it, how many prints the LULD band held back to volume only), gaps,
 * reconnects, displacements, drops, and the amendments applied to trades still held or forwarded to the
 * ingest path.
 */
export function statusLine(status: FeedStatus, previousPut: number, seconds: number): string {
  const { totals } = status;
  const rate = seconds > 0 ? (totals.put - previousPut) / seconds : 0;
  const dropped = Object.entries(totals.dropped)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ');
  return [
    `feed: ${describeFeeds(status)}`,
    `${rate.toFixed(1)} trades/s`,
    `${totals.put} put`,
    ...(totals.outsideBand > 0 ? [`outside band ${totals.outsideBand} (volume only)`] : []),
    `gaps ${totals.gaps} (${totals.gapsFilled} filled)`,
    `reconnects ${totals.reconnects}`,
    ...(totals.displacements > 0 ? [`displaced ${totals.displacements}`] : []),
    ...(dropped ? [`dropped: ${dropped}`] : []),
    ...(totals.amendmentsApplied + totals.amendmentsForwarded > 0
      ? [`amendments: ${totals.amendmentsApplied} applied, ${totals.amendmentsForwarded} forwarded`]
      : []),
  ].join(' | ');
}

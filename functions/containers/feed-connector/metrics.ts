import { Metrics } from '@aws-lambda-powertools/metrics';
import type { MetricUnit } from '@aws-lambda-powertools/metrics/types';
import { FEED_SERVICE_NAME } from '#contracts/feed';
import { METRICS, METRICS_NAMESPACE, METRICS_NAMESPACE_ENV, type MetricId } from '#contracts/metrics';
import type { FeedDropReason, FeedMetrics } from '#domain/feed/ports';

/** The connector's metrics in the catalogue. */
type FeedMetricId = Extract<MetricId, `feed${string}`>;

/** What `npm run feed` prints every 30 s, totalled over the process's life. */
export interface FeedTotals {
  received: number;
  put: number;
  reconnects: number;
  displacements: number;
  identitiesEvicted: number;
  gaps: number;
  gapsFilled: number;
  dropped: Partial<Record<FeedDropReason, number>>;
  amendmentsApplied: number;
  amendmentsForwarded: number;
  /** Prints put volume-only for lying outside the LULD band: a part of `put`, not a drop. */
  outsideBand: number;
}

/**
 * The connector's metrics (the `feed*` entries of functions/contracts/metrics.ts) as EMF lines through Powertools
 * Metrics, namespace MarketDataAlerts, dimension `service` = `feed-connector`, flushed by `flush()` (every
 * minute, with FeedConnected), plus running totals for the status line.
 */
export class FeedMetricsRecorder {
  readonly totals: FeedTotals = {
    received: 0,
    put: 0,
    reconnects: 0,
    displacements: 0,
    identitiesEvicted: 0,
    gaps: 0,
    gapsFilled: 0,
    dropped: {},
    amendmentsApplied: 0,
    amendmentsForwarded: 0,
    outsideBand: 0,
  };
  private readonly metrics = new Metrics({
    namespace: process.env[METRICS_NAMESPACE_ENV] ?? METRICS_NAMESPACE,
    serviceName: FEED_SERVICE_NAME,
  });

  /** `emit`: false where no CloudWatch reads the output (`npm run feed`): totals only. */
  constructor(private readonly emit = true) {}

  private add(id: FeedMetricId, value: number): void {
    if (!this.emit) return;
    const definition = METRICS[id];
    this.metrics.addMetric(definition.name, definition.unit as MetricUnit, value);
  }

  /**
   * A FeedMetrics port for one feed's connector; `up`, if given, hears whether that feed is connected (the
   * status reads each connector's state instead: FeedService.status()).
   */
  port(up: (connected: boolean) => void = () => {}): FeedMetrics {
    const totals = this.totals;
    return {
      tradesReceived: (count) => {
        totals.received += count;
        this.add('feedTradesReceived', count);
      },
      tradesPut: (count, lagMs) => {
        totals.put += count;
        this.add('feedTradesPut', count);
        this.add('feedLag', lagMs);
      },
      reconnect: () => {
        totals.reconnects++;
        this.add('feedReconnects', 1);
      },
      displaced: () => {
        totals.displacements++;
        this.add('feedDisplaced', 1);
      },
      identitiesEvicted: (count) => {
        totals.identitiesEvicted += count;
        this.add('feedIdentitiesEvicted', count);
      },
      gap: (startMs, endMs, filled) => {
        totals.gaps++;
        if (filled) totals.gapsFilled++;
        this.add('feedGapSeconds', (endMs - startMs) / 1_000);
      },
      connected: up,
      dropped: (reason, count) => {
        totals.dropped[reason] = (totals.dropped[reason] ?? 0) + count;
        if (!this.emit) return;
        const single = this.metrics.singleMetric();
        single.addDimension(METRICS.feedTradesDropped.dimension, reason);
        single.addMetric(METRICS.feedTradesDropped.name, METRICS.feedTradesDropped.unit as MetricUnit, count);
      },
      amendment: (outcome) => {
        if (outcome === 'applied') totals.amendmentsApplied++;
        else totals.amendmentsForwarded++;
      },
      outsideBand: (count) => {
        totals.outsideBand += count;
        this.add('feedPrintsOutsideBand', count);
      },
    };
  }

  /** Emits FeedConnected and everything recorded since the last flush. */
  flush(connected: boolean): void {
    if (!this.emit) return;
    this.add('feedConnected', connected ? 1 : 0);
    this.metrics.publishStoredMetrics();
  }
}

import { describe, expect, it } from 'vitest';
import { FeedMetricsRecorder } from '#containers/feed-connector/metrics';

describe('FeedMetricsRecorder', () => {
  it('totals the prints held to volume only by the LULD band apart from the drops', () => {
    const recorder = new FeedMetricsRecorder(false);
    const port = recorder.port(() => {});
    port.tradesReceived(3);
    port.tradesPut(3, 10);
    port.outsideBand(1);
    expect(recorder.totals).toMatchObject({ received: 3, put: 3, outsideBand: 1, dropped: {} });
  });
});

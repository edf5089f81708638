import { describe, expect, it } from 'vitest';
import type { MetricPoint } from '#runtime/metric-points';
import { hopsResult } from '../../../scripts/bench/hops.ts';

const point = (id: string, value: number) => ({ id, value }) as MetricPoint;

describe('the hop-by-hop latency table', () => {
  it('gives each point a trade reached, in the order of the way to a partner, then the bench’s end points', () => {
    const result = hopsResult(
      'quotes',
      [
        point('tradeToPost', 40),
        point('ingestWait', 10),
        point('ingestLag', 30),
        point('ingestWait', 20),
        point('tradesApplied', 5),
      ],
      [['trade -> message at the client', [50, 60, 70]]],
    );
    expect(result.name).toBe('Latency, hop by hop: quotes');
    expect(Object.keys(result.figures)).toEqual([
      'trade -> ingest starts (put on the stream, the stream to the ingest)',
      "trade -> the ingest's batch done (ledgers, derived writes, quotes posted)",
      'trade -> messages posted (quotes: by the ingest; alerts: by the fan-out)',
      'trade -> message at the client',
    ]);
    expect(result.figures['trade -> ingest starts (put on the stream, the stream to the ingest)']).toBe(
      'p50 20 ms, p99 20 ms (2 batches)',
    );
    expect(result.figures['trade -> message at the client']).toBe('p50 60 ms, p99 70 ms (3 probes)');
  });
});

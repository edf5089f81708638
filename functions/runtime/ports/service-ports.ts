import type { ThroughputTarget } from '#domain/access/ports';
import type { DeadLetterSink } from '#domain/market-data/ports';
import type { ClientConnections, UsageSink } from '#domain/streaming/ports';
import type { AccessPorts } from './access.ts';
import type { MarketDataPorts } from './market-data.ts';
import type { StratPorts } from './strat.ts';
import type { StreamingPorts } from './streaming.ts';

/**
 * Every port the handlers are built on, each a provider. A handler module's `handlerOn` takes the ones it
 * needs and wires them into its `createHandler`, once for both places that build it: its `handler`, on the
 * production ports (the factories of this folder on AWS_TABLES, the environment's endpoints, the system
 * clock), and the local stack (scripts/local/handlers.ts), on the same factories over its own tables,
 * loopback endpoints and clock.
 */
export interface ServicePorts extends MarketDataPorts, StratPorts, AccessPorts, StreamingPorts {
  readonly clientConnections: () => ClientConnections;
  readonly deadLetterSink: () => DeadLetterSink;
  /** Where the fan-out records each pushed event's usage row (docs/storage.md#usage-rows). */
  readonly usageSink: () => UsageSink;
  readonly throughputTarget: () => ThroughputTarget;
  /** The service clock. */
  readonly nowMs: () => number;
}

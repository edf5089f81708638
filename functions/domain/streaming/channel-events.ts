import type { ChannelName } from '#contracts/websocket';
import type { LatestPrice } from '#domain/market-data/bars';
import type { Instrument } from '#domain/market-data/instruments';
import type { PriceMove } from '#domain/market-data/ports';
import { toPriceItem } from '#domain/market-data/prices';
import type { InForceAlertBody, SimultaneousBreakBody } from '#domain/strat/alerts';
import type { StoredState } from '#domain/strat/ports';
import { stateSnapshotOf } from '#domain/strat/state-snapshot';
import { equalStates } from '../strat/setups.ts';
import type { PushMessage } from './messages.ts';

/** One change of a source table, as the message its channel pushes. */
export interface ChannelEvent {
  /**
   * Unique per source record (the stream's event id; a quote's symbol and ledger version): keys the usage
   * rows, so a retry never bills twice.
   */
  readonly eventId: string;
  /** When the source record was written (the stream record's time; a quote's: its trade's), Unix ms. */
  readonly recordedAtMs: number;
  /** When the trade behind it printed (a quote, an alert), Unix ms: where its latency is measured from. */
  readonly tradedAtMs?: number;
  readonly channel: ChannelName;
  /** The symbols the event is about (a simultaneous break: each future in it); they route it. */
  readonly symbols: readonly string[];
  readonly message: PushMessage;
}

/** A committed change of a source table, as its stream reports it (images already plain objects). */
export interface SourceChange {
  readonly table: 'states' | 'alerts' | 'breaks';
  readonly eventId: string;
  readonly recordedAtMs: number;
  readonly kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  readonly newItem?: Record<string, unknown>;
  readonly oldItem?: Record<string, unknown>;
}

/** What a `states` push needs besides the state: the instrument and its latest trade. */
export interface ChangeContext {
  instrument(symbol: string): Instrument | undefined;
  latestPrice(symbol: string): LatestPrice | undefined;
}

interface FeedItem<Body> {
  readonly id: number;
  readonly body: Body;
}

/**
 * The message a change pushes, if any (docs/websocket.md#channels-and-pushed-messages): a state pushes when its
 * TFC or setups changed, not when it was only re-derived; an alert or a break pushes once, when appended.
 * Deletions push nothing. (Quotes come from the ingest's commits, not a stream: `quoteEventOf`.)
 */
export function channelEventOf(change: SourceChange, context: ChangeContext): ChannelEvent | undefined {
  const { newItem } = change;
  if (change.kind === 'REMOVE' || !newItem) return undefined;
  const common = { eventId: change.eventId, recordedAtMs: change.recordedAtMs };
  switch (change.table) {
    case 'states': {
      const state = newItem as unknown as StoredState;
      const old = change.oldItem as unknown as StoredState | undefined;
      if (old && equalStates(old, state)) return undefined;
      const instrument = context.instrument(state.symbol);
      if (!instrument) return undefined;
      return {
        ...common,
        channel: 'states',
        symbols: [state.symbol],
        message: {
          channel: 'states',
          symbol: state.symbol,
          data: stateSnapshotOf(instrument, state, context.latestPrice(state.symbol)),
        },
      };
    }
    case 'alerts': {
      if (change.kind !== 'INSERT') return undefined;
      const { id, body } = newItem as unknown as FeedItem<InForceAlertBody>;
      // Its own time: `atMs`, or `triggeredAtMs` on an item that has no `atMs` (ADR 0009's sparse index).
      const ownMs = newItem.atMs ?? newItem.triggeredAtMs;
      return {
        ...common,
        ...(typeof ownMs === 'number' ? { tradedAtMs: ownMs } : {}),
        channel: 'alerts.in_force',
        symbols: [body.symbol],
        message: { channel: 'alerts.in_force', symbol: body.symbol, data: { id, ...body } },
      };
    }
    case 'breaks': {
      if (change.kind !== 'INSERT') return undefined;
      const { id, body } = newItem as unknown as FeedItem<SimultaneousBreakBody>;
      return {
        ...common,
        channel: 'alerts.simultaneous_breaks',
        symbols: body.symbols,
        message: { channel: 'alerts.simultaneous_breaks', data: { id, ...body } },
      };
    }
  }
}

/**
 * The quote a committed price move pushes (docs/adr/0024-quotes-posted-by-the-ingest.md). Its id is the
 * symbol and ledger version, and its time the trade's: both stay the same when a redelivered batch pushes
 * the commit's quote again, so its usage rows are counted once. A quote sent before its commit adds its
 * revision (`AAPL#12.3`): each of them is a message of its own.
 */
export function quoteEventOf(move: PriceMove): ChannelEvent {
  return {
    eventId: `${move.symbol}#${move.version}${move.revision === undefined ? '' : `.${move.revision}`}`,
    recordedAtMs: move.timestamp,
    tradedAtMs: move.timestamp,
    channel: 'quotes',
    symbols: [move.symbol],
    message: { channel: 'quotes', symbol: move.symbol, data: toPriceItem(move) },
  };
}

/**
 * What the benchmark and its client host (a child process) share: the messages between them over IPC,
 * the clock both stamp times with (`performance.timeOrigin + performance.now()`, comparable on one
 * machine), and the prices that carry a per-symbol sequence number, so each quote names the trade that
 * made it.
 */

export const now = (): number => performance.timeOrigin + performance.now();

/** A trade's price carries its per-symbol sequence number (unique per symbol, so a quote names its trade). */
export const priceOf = (sequence: number): number => (10_000 + sequence) / 100;
export const sequenceOf = (price: number): number => Math.round(price * 100) - 10_000;

export type HostCommand =
  | {
      readonly op: 'open';
      readonly url: string;
      readonly keys: readonly string[];
      /** Subscribe each connection to `quotes` of these; without, the connection stays idle (one ping). */
      readonly symbols?: readonly string[];
      /** Subscribe them batched (docs/websocket.md#batched-quotes). */
      readonly batch?: boolean;
    }
  /** Forget what was received so far and record from now on; `notify`: report the first client's quotes. */
  | { readonly op: 'record'; readonly notify: boolean }
  | { readonly op: 'collect' }
  | { readonly op: 'close' };

export interface Collected {
  readonly op: 'collected';
  /** One entry per quote received (a batched frame's each): client (opening order), symbol index, sequence, arrival time. */
  readonly client: number[];
  readonly symbol: number[];
  readonly sequence: number[];
  readonly atMs: number[];
  /** A client's quote of a symbol older than the last one it had of that symbol. */
  readonly outOfOrder: number;
  /** A client's quote it had already received. */
  readonly duplicates: number;
  /** Quotes some client received and another (subscribed to the same symbols) never did. */
  readonly missing: number;
  /** Messages that were neither quotes nor replies (heartbeats, errors). */
  readonly other: number;
  /** Quote frames received: one per quote, or fewer when batched. */
  readonly frames: number;
  /** CPU time of the client host since `record`, ms. */
  readonly cpuMs: number;
  /** Connections open. */
  readonly clients: number;
}

export type HostReply =
  | { readonly op: 'opened'; readonly opened: number; readonly failures: readonly string[] }
  | { readonly op: 'recording' }
  | Collected
  | { readonly op: 'closed'; readonly unexpectedCloses: Readonly<Record<string, number>> }
  | { readonly op: 'observed'; readonly symbol: number; readonly sequence: number };

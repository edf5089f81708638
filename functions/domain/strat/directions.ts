/** The two directions of a Strat setup going in force. */
export type Direction = 'bullish' | 'bearish';

export const DIRECTIONS: readonly Direction[] = Object.freeze(['bullish', 'bearish']);

/**
 * The alerts already fired in the forming period of an interval (reset when a new period opens), and the
 * direction of the most recent one (the pmg direction of a bar that became a 3).
 */
export interface InForceFlags {
  bullish?: boolean;
  bearish?: boolean;
  last?: Direction;
}

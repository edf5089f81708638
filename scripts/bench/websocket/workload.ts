/** What the WebSocket benchmark puts through the local stack: its clock, its symbols, its connections. */
import { readFileSync } from 'node:fs';
import { UNIVERSE_CSV } from '../../lib/project.ts';
import { parseUniverseCsv } from '../../lib/universe.ts';

/** 11:00 New York on a regular Friday: the service clock starts here, and every trade is stamped from it. */
export const CLOCK_START = new Date('2024-11-22T16:00:00Z');
/** Every connection subscribes to these (the same 50 equities), and only these are traded. */
export const SYMBOLS = parseUniverseCsv(readFileSync(UNIVERSE_CSV, 'utf8'))
  .map(({ symbol }) => symbol)
  .filter((symbol) => !symbol.endsWith('!'))
  .slice(0, 50);
/** Accounts (one key each) created, and connected at once for the idle-memory figure. */
export const IDLE_CONNECTIONS = 1000;
/** Accounts connected and subscribed to SYMBOLS for the shared lag and the saturation. */
export const SUBSCRIBERS = 500;

/**
 * The service clock of a Lambda instance, in epoch milliseconds: the system's. The local stack's
 * `--clock`/`--speed` never reach the functions' configuration; it passes its own `nowMs` to each handler's
 * `createHandler` (scripts/local/handlers.ts).
 */
export const nowMs = (): number => Date.now();

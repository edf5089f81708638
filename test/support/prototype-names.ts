/**
 * The names of Object.prototype's properties (`constructor`, `__proto__`, `toString`, `hasOwnProperty`, ...):
 * a map keyed by names that come from a request must treat them as ordinary names. The property tests and the
 * fuzz use them as parameter and header names.
 */
export const PROTOTYPE_NAMES: readonly string[] = Object.getOwnPropertyNames(Object.prototype);

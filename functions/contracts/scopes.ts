/** The scopes a key can carry (docs/partner-guide.md#scopes). */
export const SCOPES = [
  'metadata:read',
  'prices:read',
  'candles:read',
  'states:read',
  'alerts:read',
  'ws:connect',
] as const;

export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

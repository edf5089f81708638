import { createHash, timingSafeEqual } from 'node:crypto';
import type { Scope } from '#contracts/scopes';
import { KEY_SUBPROTOCOL_PREFIX } from '#contracts/websocket';

/**
 * API keys (docs/partner-guide.md#authentication). A key reads `mda_<keyId>_<secret>`: the key id finds the
 * stored record, the secret (32 random bytes) makes the key unguessable. Only the SHA-256 of the whole key is
 * stored: a high-entropy key needs no slow hash, and the raw key is shown once, at creation.
 */
export const API_KEY_PREFIX = 'mda';
const KEY_ID_LENGTH = 12;
const SECRET_BYTES = 32;
const USAGE_IDENTIFIER_BYTES = 24;
const KEY_PATTERN = /^mda_([a-z2-7]{12})_([A-Za-z0-9_-]{43})$/;
const BASE32_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

export type RandomBytes = (size: number) => Uint8Array;

export interface ApiKeyRecord {
  readonly keyId: string;
  readonly accountId: string;
  readonly label: string;
  readonly scopes: readonly Scope[];
  /** Hex SHA-256 of the raw key. */
  readonly secretHash: string;
  /** The API Gateway API key value the authorizer returns for the usage plan; never the partner's key. */
  readonly usageIdentifierKey: string;
  readonly createdAt: string;
  readonly revokedAt?: string;
}

export interface IssuedKey {
  readonly keyId: string;
  readonly rawKey: string;
  readonly secretHash: string;
  readonly usageIdentifierKey: string;
}

function base32(bytes: Uint8Array, length: number): string {
  let text = '';
  for (let index = 0; index < length; index++) {
    text += BASE32_ALPHABET[(bytes[index] ?? 0) % 32];
  }
  return text;
}

export function hashApiKey(rawKey: string): string {
  return createHash('sha256').update(rawKey).digest('hex');
}

export function issueApiKey(randomBytes: RandomBytes): IssuedKey {
  const keyId = base32(randomBytes(KEY_ID_LENGTH), KEY_ID_LENGTH);
  const secret = Buffer.from(randomBytes(SECRET_BYTES)).toString('base64url');
  const rawKey = `${API_KEY_PREFIX}_${keyId}_${secret}`;
  const usageIdentifierKey = Buffer.from(randomBytes(USAGE_IDENTIFIER_BYTES)).toString('base64url');
  return { keyId, rawKey, secretHash: hashApiKey(rawKey), usageIdentifierKey };
}

/** The key id of a well-formed key; `undefined` for anything else. */
export function keyIdOf(rawKey: string): string | undefined {
  return KEY_PATTERN.exec(rawKey)?.[1];
}

/** Constant-time comparison of a presented key with a stored hash. */
export function keyMatchesHash(rawKey: string, secretHash: string): boolean {
  const presented = Buffer.from(hashApiKey(rawKey), 'hex');
  const stored = Buffer.from(secretHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}

export type Headers = Readonly<Record<string, string | undefined>> | null | undefined;

function header(headers: Headers, name: string): string | undefined {
  if (!headers) return undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

/** The entries of a WebSocket handshake's `Sec-WebSocket-Protocol` header (comma-separated), in order. */
export function offeredSubprotocols(headers: Headers): string[] {
  const value = header(headers, 'sec-websocket-protocol') ?? '';
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** The key of the first `key.`-prefixed subprotocol entry (docs/websocket.md#connecting-from-a-browser). */
function keyFromSubprotocols(headers: Headers): string | undefined {
  const entry = offeredSubprotocols(headers).find((offered) => offered.startsWith(KEY_SUBPROTOCOL_PREFIX));
  return entry?.slice(KEY_SUBPROTOCOL_PREFIX.length) || undefined;
}

/**
 * The key a request carries: `Authorization: Bearer <key>` first, else `X-API-Key: <key>`
 * (docs/partner-guide.md#sending-your-key), else, for a WebSocket handshake only (`subprotocol`), a
 * `key.<key>` entry of `Sec-WebSocket-Protocol` (docs/websocket.md#connecting-from-a-browser). Header names
 * are case-insensitive; an empty value counts as no key.
 */
export function extractApiKey(headers: Headers, sources: { subprotocol?: boolean } = {}): string | undefined {
  const authorization = header(headers, 'authorization')?.trim();
  const bearer = authorization ? /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim() : undefined;
  if (bearer) return bearer;
  const apiKey = header(headers, 'x-api-key')?.trim();
  if (apiKey) return apiKey;
  return sources.subprotocol ? keyFromSubprotocols(headers) : undefined;
}

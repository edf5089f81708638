import type { Scope } from '#contracts/scopes';
import { extractApiKey, type Headers, keyIdOf, keyMatchesHash } from './api-keys.ts';
import type { CredentialLookup } from './ports.ts';

/** Who is calling, once the key is known. */
export interface Principal {
  readonly accountId: string;
  readonly keyId: string;
  readonly scopes: readonly Scope[];
  readonly usageIdentifierKey: string;
}

export type DenialCode = 'inactive_entitlement' | 'missing_scope';

export type AccessDecision =
  | { readonly outcome: 'allow'; readonly principal: Principal }
  | { readonly outcome: 'deny'; readonly code: DenialCode; readonly principal: Principal }
  | { readonly outcome: 'unauthenticated' };

const UNAUTHENTICATED: AccessDecision = { outcome: 'unauthenticated' };

/**
 * The checks of docs/partner-guide.md#what-you-get-when-access-fails, in their order: no valid key (absent,
 * empty, malformed, unknown or revoked) is unauthenticated; a key whose account has no active entitlement is
 * denied `inactive_entitlement`; a key without the required scope is denied `missing_scope`. `requiredScope`
 * undefined (no such route) is always denied. A WebSocket handshake (`keyInSubprotocol`) may also carry the
 * key in its `Sec-WebSocket-Protocol` header; a REST request may not.
 */
export async function authorize(
  headers: Headers,
  requiredScope: Scope | undefined,
  lookupCredential: CredentialLookup,
  options: { keyInSubprotocol?: boolean } = {},
): Promise<AccessDecision> {
  const rawKey = extractApiKey(headers, { subprotocol: options.keyInSubprotocol });
  const keyId = rawKey === undefined ? undefined : keyIdOf(rawKey);
  if (rawKey === undefined || keyId === undefined) return UNAUTHENTICATED;

  const credential = await lookupCredential(keyId);
  if (!credential || credential.key.revokedAt || !keyMatchesHash(rawKey, credential.key.secretHash)) {
    return UNAUTHENTICATED;
  }
  const { key, account } = credential;
  const principal: Principal = {
    accountId: key.accountId,
    keyId: key.keyId,
    scopes: key.scopes,
    usageIdentifierKey: key.usageIdentifierKey,
  };
  if (account?.entitlement !== 'active') return { outcome: 'deny', code: 'inactive_entitlement', principal };
  if (requiredScope === undefined || !key.scopes.includes(requiredScope)) {
    return { outcome: 'deny', code: 'missing_scope', principal };
  }
  return { outcome: 'allow', principal };
}

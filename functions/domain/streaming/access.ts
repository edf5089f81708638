import { CHANNELS, type ChannelName, CLOSE_CODES, type CloseCode } from '#contracts/websocket';
import type { Credential } from '#domain/access/ports';

/**
 * Whether a connection may stay open, judged as its handshake was, from its key and account as they are
 * now: a key revoked (or gone) is 4401; an account whose entitlement lapsed, or a key without `ws:connect`,
 * is 4403. `undefined`: it stays.
 */
export function closeCodeFor(credential: Credential | undefined): CloseCode | undefined {
  if (!credential || credential.key.revokedAt) return CLOSE_CODES.noValidKey;
  if (credential.account?.entitlement !== 'active' || !credential.key.scopes.includes('ws:connect')) {
    return CLOSE_CODES.forbidden;
  }
  return undefined;
}

/** Whether the key still has the scope of `channel` (a scope removed since subscribing stops its pushes). */
export function mayReceive(credential: Credential, channel: ChannelName): boolean {
  return credential.key.scopes.includes(CHANNELS[channel].scope);
}

import { WS_SUBPROTOCOL } from '#contracts/websocket';
import { type Headers, offeredSubprotocols } from '#domain/access/api-keys';

/**
 * The subprotocol `$connect` selects (docs/websocket.md#connecting-from-a-browser): `market-data.v1` when the
 * handshake offers it, else none. The `key.` entry that carries a browser's key is never selected: the
 * answer would send the key back in a response header.
 */
export function selectedSubprotocol(headers: Headers): string | undefined {
  return offeredSubprotocols(headers).includes(WS_SUBPROTOCOL) ? WS_SUBPROTOCOL : undefined;
}

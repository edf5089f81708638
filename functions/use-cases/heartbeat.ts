import pLimit from 'p-limit';
import type { CredentialLookup } from '#domain/access/ports';
import { frameOf, HEARTBEAT_MESSAGE } from '#domain/streaming/messages';
import type { ConnectionRecord } from '#domain/streaming/ports';
import { closeCodeIfAccessWithdrawn, closeConnection, type SessionPorts } from './websocket-session.ts';

export interface HeartbeatPorts extends SessionPorts {
  /** Each connection's key and account as they are now (no cache: a revocation shows at the next round). */
  readonly credentials: CredentialLookup;
  /** Connections visited at once at most. */
  readonly concurrency: number;
}

export interface HeartbeatRound {
  readonly sent: number;
  readonly gone: number;
  /** Connections closed because their key was revoked or their account's entitlement lapsed. */
  readonly closed: number;
  readonly failed: number;
  /** The close code of each closed connection (4401 or 4403), for the refusal counts. */
  readonly closeCodes: readonly number[];
  /** Why each failed connection failed (for the log). */
  readonly errors: readonly string[];
}

/**
 * One heartbeat round over every connection, page by page:
 * - `{"op":"heartbeat"}`, so API Gateway's 10-minute idle timeout never drops a quiet partner
 *   (docs/websocket.md#heartbeats-and-connection-lifetime);
 * - a connection whose key was revoked since its handshake is closed with 4401, one whose account lost its
 *   entitlement with 4403, as the handshake would now be refused;
 * - a connection found gone is cleaned up.
 * One connection's failure does not stop the others: it is counted in `failed` with its reason.
 */
export async function sendHeartbeats(ports: HeartbeatPorts): Promise<HeartbeatRound> {
  const limit = pLimit(ports.concurrency);
  const round = {
    sent: 0,
    gone: 0,
    closed: 0,
    failed: 0,
    closeCodes: [] as number[],
    errors: [] as string[],
  };

  const heartbeat = frameOf(HEARTBEAT_MESSAGE);
  const visit = async (connection: ConnectionRecord) => {
    const closeCode = await closeCodeIfAccessWithdrawn(connection, ports.credentials);
    if (closeCode !== undefined) {
      round.closed += 1;
      round.closeCodes.push(closeCode);
      await ports.clients.close(connection.connectionId, closeCode);
      await closeConnection(connection, ports);
      return;
    }
    if ((await ports.clients.send(connection.connectionId, heartbeat)) === 'sent') {
      round.sent += 1;
      return;
    }
    round.gone += 1;
    await closeConnection(connection, ports);
  };

  for await (const page of ports.connections.list()) {
    const results = await Promise.allSettled(page.map((connection) => limit(() => visit(connection))));
    for (const result of results) {
      if (result.status === 'fulfilled') continue;
      round.failed += 1;
      round.errors.push(String(result.reason));
    }
  }
  return round;
}

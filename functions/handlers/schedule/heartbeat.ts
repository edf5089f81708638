import pLimit from 'p-limit';
import { POST_CONCURRENCY } from '#contracts/websocket';
import type { CredentialLookup } from '#domain/access/ports';
import { HEARTBEAT_MESSAGE } from '#domain/streaming/messages';
import type { ConnectionRecord } from '#domain/streaming/ports';
import { cachedCredentialLookup } from '#runtime/credential-lookup';
import { instrumented } from '#runtime/lambda-handler';
import { logger } from '#runtime/logger';
import { memo } from '#runtime/memo';
import { recordMetric } from '#runtime/metrics';
import { accountStore, apiKeyStore } from '#runtime/ports/access';
import { clientConnections } from '#runtime/ports/client-connections';
import { connectionStore, subscriptionStore } from '#runtime/ports/streaming';
import { closeCodeIfAccessWithdrawn, closeConnection, type SessionPorts } from '#use-cases/websocket-session';

export interface HeartbeatOutcome {
  readonly sent: number;
  readonly gone: number;
  /** Connections closed because their key was revoked or their account's entitlement lapsed. */
  readonly closed: number;
  readonly failed: number;
}

/**
 * The heartbeat (an EventBridge schedule on AWS, a timer locally), for every connection:
 * - `{"op":"heartbeat"}`, so API Gateway's 10-minute idle timeout never drops a quiet partner
 *   (docs/websocket.md#heartbeats-and-connection-lifetime);
 * - a connection whose key was revoked since its handshake is closed with 4401, one whose account lost its
 *   entitlement with 4403, as the handshake would now be refused;
 * - a connection found gone is cleaned up.
 * One connection's failure does not stop the others.
 */
export const createHandler =
  (deps: { ports: () => SessionPorts; credentials: () => CredentialLookup }) =>
  async (): Promise<HeartbeatOutcome> => {
    const ports = deps.ports();
    const credentials = deps.credentials();
    const limit = pLimit(POST_CONCURRENCY);
    const counts = { sent: 0, gone: 0, closed: 0, failed: 0 };

    const visit = async (connection: ConnectionRecord) => {
      const closeCode = await closeCodeIfAccessWithdrawn(connection, credentials);
      if (closeCode !== undefined) {
        counts.closed += 1;
        recordMetric('refusals', 1, String(closeCode));
        await ports.clients.close(connection.connectionId, closeCode);
        await closeConnection(connection, ports);
        return;
      }
      if ((await ports.clients.send(connection.connectionId, HEARTBEAT_MESSAGE)) === 'sent') {
        counts.sent += 1;
        return;
      }
      counts.gone += 1;
      await closeConnection(connection, ports);
    };

    for await (const page of ports.connections.list()) {
      const results = await Promise.allSettled(page.map((connection) => limit(() => visit(connection))));
      for (const result of results) {
        if (result.status === 'fulfilled') continue;
        counts.failed += 1;
        logger.warn('heartbeat failed for a connection', { error: String(result.reason) });
      }
    }
    logger.info('sent heartbeats', counts);
    return counts;
  };

export const handler = instrumented(
  createHandler({
    ports: () => ({
      connections: connectionStore(),
      subscriptions: subscriptionStore(),
      clients: clientConnections(),
    }),
    // No cache: each connection's key is read once per heartbeat, and a revocation must show at the next one.
    credentials: memo(() => cachedCredentialLookup({ keys: apiKeyStore(), accounts: accountStore() }, 0)),
  }),
);

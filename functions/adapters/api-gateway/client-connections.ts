import {
  type ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { CLOSE_REASONS, type CloseCode } from '#contracts/websocket';
import { closeMessage, type Frame, frameOf } from '#domain/streaming/messages';
import type { ClientConnections, Delivery } from '#domain/streaming/ports';

/**
 * The `@connections` management API (API Gateway on AWS, the local gateway's stand-in locally). It cannot
 * send a close code, so closing is a final control message carrying the code, then DeleteConnection
 * (docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes); the local gateway turns
 * that control message into a real close frame.
 */
export class ApiGatewayClientConnections implements ClientConnections {
  constructor(private readonly client: ApiGatewayManagementApiClient) {}

  async send(connectionId: string, frame: Frame): Promise<Delivery> {
    try {
      await this.client.send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: frame.bytes }));
      return 'sent';
    } catch (error) {
      if (error instanceof GoneException) return 'gone';
      throw error;
    }
  }

  async close(connectionId: string, code: CloseCode): Promise<void> {
    if ((await this.send(connectionId, frameOf(closeMessage(code, CLOSE_REASONS[code])))) === 'gone') return;
    try {
      await this.client.send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
    } catch (error) {
      if (!(error instanceof GoneException)) throw error;
    }
  }
}

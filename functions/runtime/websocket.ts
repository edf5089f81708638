import type { APIGatewayProxyResultV2, APIGatewayProxyWebsocketEventV2 } from 'aws-lambda';
import * as z from 'zod/mini';
import { isScope, type Scope } from '#contracts/scopes';
import type { ConnectionRecord } from '#domain/streaming/ports';

/**
 * A WebSocket route's event: API Gateway passes the `$connect` authorizer's context to every route of the
 * connection (`requestContext.authorizer`), and `connectedAt` with it; `$connect` also gets the handshake's
 * headers (the types of `aws-lambda` leave them out).
 */
export type WebSocketEvent = APIGatewayProxyWebsocketEventV2 & {
  readonly headers?: Readonly<Record<string, string | undefined>>;
  readonly requestContext: APIGatewayProxyWebsocketEventV2['requestContext'] & {
    readonly authorizer?: Record<string, unknown>;
  };
};

const authorizerContextSchema = z.object({
  accountId: z.string().check(z.minLength(1)),
  keyId: z.string().check(z.minLength(1)),
  scopes: z.string(),
});

/** The connection an event belongs to, with the caller the authorizer allowed at `$connect`. */
export function connectionOf(event: WebSocketEvent): ConnectionRecord {
  const context = authorizerContextSchema.parse(event.requestContext.authorizer);
  return {
    accountId: context.accountId,
    keyId: context.keyId,
    scopes: context.scopes.split(',').filter((scope): scope is Scope => isScope(scope)),
    connectionId: event.requestContext.connectionId,
    connectedAtMs: event.requestContext.connectedAt,
  };
}

/** What a route answers API Gateway: 200 keeps the connection (and, at `$connect`, completes the upgrade). */
export const OK: APIGatewayProxyResultV2 = { statusCode: 200 };

import { randomBytes, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyResultV2,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import * as z from 'zod/mini';
import { CLOSE_CODES, CLOSE_REASONS, type CloseCode, WS_BASE_PATH, WS_STAGE } from '#contracts/websocket';
import type { Frame } from '#domain/streaming/messages';
import type { ClientConnections, Delivery } from '#domain/streaming/ports';
import { selectedSubprotocol } from '#domain/streaming/subprotocol';
import type { WebSocketEvent } from '#runtime/websocket';
import { readBody } from './control-plane.ts';
import { invokeLocally } from './lambda-context.ts';
import {
  type AuthorizerHandler,
  type HttpAnswer,
  isAllowed,
  requestHeaders,
  requestNameMap,
} from './rest-gateway.ts';

/**
 * The local stand-in for API Gateway's WebSocket API
 * (docs/architecture.md#local-stack-the-same-code-on-embedded-parts): the upgrade on WS_BASE_PATH, the
 * authorizer and the `$connect`, `$disconnect` and `$default` handlers invoked with API Gateway-shaped
 * events, and the `@connections` management API the functions post through, so their
 * ApiGatewayManagementApiClient runs unchanged.
 *
 * Where AWS cannot send a close code
 * (docs/architecture.md#websocket-api-gateway-websocket-api-with-mapped-close-codes) the local gateway
 * follows docs/websocket.md#close-codes exactly: a refused handshake is accepted and closed with 4401 or 4403
 * before any message, and the final control message `{"op":"close","code":4409}` the functions post before
 * deleting a connection becomes a real close frame.
 *
 * The upgrade's `Sec-WebSocket-Protocol` answer is the one `$connect` returns, as API Gateway passes it on
 * (docs/websocket.md#connecting-from-a-browser). A refused handshake selects `market-data.v1` when offered:
 * a browser that offered subprotocols fails an upgrade that selects none, and would never see the 4401 or 4403.
 */
export type WebSocketRouteHandler = (
  event: WebSocketEvent,
  context: unknown,
) => Promise<APIGatewayProxyResultV2>;

export interface WebSocketHandlers {
  readonly authorizer: AuthorizerHandler;
  readonly connect: WebSocketRouteHandler;
  readonly disconnect: WebSocketRouteHandler;
  readonly message: WebSocketRouteHandler;
}

/** Where the management API is served: the functions' `WS_CALLBACK_URL` is this path on the gateway. */
export const MANAGEMENT_PATH = '/_local/ws';

/** API Gateway's limit on one WebSocket message. */
const MAX_MESSAGE_BYTES = 128 * 1024;

/**
 * A frame the protocol refuses (beyond MAX_MESSAGE_BYTES, a text frame that is not UTF-8, a reserved bit
 * set, ...): `ws` has already closed that connection with the protocol's code (1009, 1007, 1002) when it
 * emits the error, so there is nothing left to do; without a listener the error would end the process.
 */
function ignoreFrameError(): void {}

const LOCAL_API_ID = 'local-ws';
/** Close code for a `$connect` that failed (API Gateway answers the upgrade with a 5xx). */
const INTERNAL_ERROR = 1011;

const controlMessageSchema = z.object({
  op: z.literal('close'),
  code: z.int().check(z.minimum(4000), z.maximum(4999)),
  reason: z.string(),
});

/** API Gateway's event type for each route. */
const EVENT_TYPES = { $connect: 'CONNECT', $disconnect: 'DISCONNECT', $default: 'MESSAGE' } as const;

type RouteKey = keyof typeof EVENT_TYPES;

interface Connection {
  readonly id: string;
  readonly connectedAt: number;
  readonly domainName: string;
  readonly authorizer: Record<string, unknown>;
  readonly sourceIp: string;
  readonly userAgent: string;
  socket?: WebSocket;
  /** Set when the connection was ended (by the management API) before its upgrade completed. */
  closeWith?: { code: number; reason: string };
  lastActiveAt: number;
  /** Client messages are handled one after another, as they arrived. */
  inbox: Promise<void>;
}

function connectionId(): string {
  // API Gateway's ids look like `L0SM9cOFvHcCIhw=`.
  return randomBytes(10).toString('base64');
}

/** The `requestContext` API Gateway gives the authorizer and every route of a connection. */
function requestContextOf(
  routeKey: RouteKey,
  connection: Pick<Connection, 'id' | 'connectedAt' | 'domainName' | 'sourceIp'>,
) {
  const eventType = EVENT_TYPES[routeKey];
  return {
    routeKey,
    eventType,
    connectionId: connection.id,
    connectedAt: connection.connectedAt,
    requestId: randomUUID(),
    extendedRequestId: randomUUID(),
    ...(eventType === 'MESSAGE' ? { messageId: randomUUID() } : {}),
    apiId: LOCAL_API_ID,
    stage: WS_STAGE,
    domainName: connection.domainName,
    requestTimeEpoch: Date.now(),
    messageDirection: 'IN',
    identity: { sourceIp: connection.sourceIp },
  };
}

function goneAnswer(id: string): HttpAnswer {
  return {
    statusCode: 410,
    headers: { 'Content-Type': 'application/json', 'x-amzn-errortype': 'GoneException' },
    body: JSON.stringify({ message: `connection ${id} is gone` }),
  };
}

export class LocalWebSocketGateway {
  /** The subprotocol each upgrade answers with, set before the upgrade completes. */
  private readonly subprotocols = new WeakMap<IncomingMessage, string>();
  private readonly server = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    handleProtocols: (_offered, request) => this.subprotocols.get(request) ?? false,
  });
  private readonly connections = new Map<string, Connection>();
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    private readonly handlers: WebSocketHandlers,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** Connections open right now. */
  get size(): number {
    return [...this.connections.values()].filter((connection) => connection.socket).length;
  }

  /** The ids of the connections open right now (tests). */
  openConnectionIds(): string[] {
    return [...this.connections.values()].filter((connection) => connection.socket).map(({ id }) => id);
  }

  /** The HTTP server's `upgrade` event: the API's path, or a 404. */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    // A client that resets the connection during the handshake must not take the process with it.
    socket.on('error', () => socket.destroy());
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== WS_BASE_PATH) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    this.track(
      this.open(request, socket, head, url).catch((error: unknown) => {
        // Whatever failed, the handshake is answered: a socket is never left open without an answer.
        if (!socket.destroyed) socket.destroy();
        throw error;
      }),
    );
  }

  /** `{MANAGEMENT_PATH}/@connections/{id}`: POST a message, DELETE the connection, GET its details. */
  async handleManagement(request: IncomingMessage): Promise<HttpAnswer> {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const match = /^\/@connections\/([^/]+)$/.exec(url.pathname.slice(MANAGEMENT_PATH.length));
    const id = match?.[1] ? decodeURIComponent(match[1]) : undefined;
    const connection = id === undefined ? undefined : this.connections.get(id);
    if (id === undefined) return { statusCode: 404, headers: {}, body: '' };
    if (!connection) return goneAnswer(id);

    if (request.method === 'POST') {
      // PostToConnection's limit is one WebSocket message; the rest of a longer body is not read.
      const body = await readBody(request, MAX_MESSAGE_BYTES);
      if (body === undefined) {
        return {
          statusCode: 413,
          headers: { 'Content-Type': 'application/json', 'x-amzn-errortype': 'PayloadTooLargeException' },
          body: JSON.stringify({ message: `a message is at most ${MAX_MESSAGE_BYTES} bytes` }),
        };
      }
      this.post(connection, body);
      return { statusCode: 200, headers: {}, body: '' };
    }
    if (request.method === 'DELETE') {
      this.end(connection, 1000, '');
      return { statusCode: 204, headers: {}, body: '' };
    }
    if (request.method === 'GET') {
      return {
        statusCode: 200,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          ConnectedAt: new Date(connection.connectedAt).toISOString(),
          LastActiveAt: new Date(connection.lastActiveAt).toISOString(),
          Identity: { SourceIp: connection.sourceIp, UserAgent: connection.userAgent },
        }),
      };
    }
    return { statusCode: 404, headers: {}, body: '' };
  }

  /**
   * PostToConnection in-process, for the local fan-out (InProcessConnections below): what a POST to
   * `@connections` does, without the HTTP request and the SDK call around it. `gone` for an unknown
   * connection (410 GoneException); a body over one WebSocket message fails as the 413 does.
   */
  postInProcess(connectionId: string, frame: Frame): Delivery {
    const connection = this.connections.get(connectionId);
    if (!connection) return 'gone';
    if (frame.bytes.byteLength > MAX_MESSAGE_BYTES) {
      throw new Error(`PayloadTooLargeException: a message is at most ${MAX_MESSAGE_BYTES} bytes`);
    }
    this.posted += 1;
    // The frame's bytes, encoded once for every connection, sent as a text frame.
    this.deliver(connection, frame.bytes);
    return 'sent';
  }

  /** The close control message then DeleteConnection, in-process: a close frame with `code`. */
  closeInProcess(connectionId: string, code: CloseCode, reason: string): void {
    const connection = this.connections.get(connectionId);
    if (connection) this.end(connection, code, reason);
  }

  /** Messages posted in-process so far (the benchmark's count of posts). */
  posted = 0;

  /** Closes every connection (each gets its `$disconnect`) and waits for the handlers to finish. */
  async stop(): Promise<void> {
    for (const connection of this.connections.values()) this.end(connection, 1001, 'server stopping');
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
    this.server.close();
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) =>
      this.log(`WebSocket gateway: ${error instanceof Error ? error.message : String(error)}`),
    );
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  private async open(request: IncomingMessage, socket: Duplex, head: Buffer, url: URL): Promise<void> {
    const handshake = {
      id: connectionId(),
      connectedAt: Date.now(),
      domainName: request.headers.host ?? 'localhost',
      sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
    };
    const { headers, multiValueHeaders } = requestHeaders(request);
    const queryStringParameters = requestNameMap<string>();
    for (const [name, value] of url.searchParams) queryStringParameters[name] = value;

    let authorization: APIGatewayAuthorizerResult;
    try {
      const authorizerEvent = {
        type: 'REQUEST',
        methodArn: `arn:aws:execute-api:us-east-1:000000000000:${LOCAL_API_ID}/${WS_STAGE}/$connect`,
        headers,
        multiValueHeaders,
        queryStringParameters,
        requestContext: requestContextOf('$connect', handshake),
      } as unknown as APIGatewayRequestAuthorizerEvent;
      authorization = await invokeLocally('authorizer', (context) =>
        this.handlers.authorizer(authorizerEvent, context),
      );
    } catch (error) {
      const unauthorized = error instanceof Error && error.message === 'Unauthorized';
      this.refuse(request, socket, head, unauthorized ? CLOSE_CODES.noValidKey : INTERNAL_ERROR);
      return;
    }
    if (!isAllowed(authorization)) {
      this.refuse(request, socket, head, CLOSE_CODES.forbidden);
      return;
    }

    const connection: Connection = {
      ...handshake,
      authorizer: { ...authorization.context, principalId: authorization.principalId },
      userAgent: String(request.headers['user-agent'] ?? ''),
      lastActiveAt: handshake.connectedAt,
      inbox: Promise.resolve(),
    };
    // Registered before `$connect` runs: a newer connection of the account may evict it meanwhile.
    this.connections.set(connection.id, connection);
    const connected = await this.invoke(this.handlers.connect, connection, '$connect', headers);
    if (!connected.ok) {
      this.connections.delete(connection.id);
      this.refuse(request, socket, head, INTERNAL_ERROR);
      return;
    }

    if (socket.destroyed) {
      // The client went away during `$connect`: as on AWS, the connection ends with its `$disconnect`.
      this.closed(connection);
      return;
    }
    const subprotocol = connected.headers['Sec-WebSocket-Protocol'];
    if (subprotocol) this.subprotocols.set(request, subprotocol);
    this.server.handleUpgrade(request, socket, head, (ws) => {
      connection.socket = ws;
      ws.on('error', ignoreFrameError);
      ws.on('message', (data: RawData) => this.receive(connection, data));
      ws.on('close', () => this.closed(connection));
      if (connection.closeWith) ws.close(connection.closeWith.code, connection.closeWith.reason);
    });
  }

  /** A refused handshake: the upgrade completes and the socket closes with the code, before any message. */
  private refuse(request: IncomingMessage, socket: Duplex, head: Buffer, code: number): void {
    const subprotocol = selectedSubprotocol(requestHeaders(request).headers);
    if (subprotocol) this.subprotocols.set(request, subprotocol);
    this.server.handleUpgrade(request, socket, head, (ws) => {
      ws.on('error', ignoreFrameError);
      ws.close(code, CLOSE_REASONS[code as CloseCode] ?? 'internal error');
    });
  }

  private receive(connection: Connection, data: RawData): void {
    connection.lastActiveAt = Date.now();
    const body = Buffer.isBuffer(data)
      ? data.toString('utf8')
      : Buffer.concat(data as Buffer[]).toString('utf8');
    const handled = connection.inbox.then(() =>
      this.invoke(this.handlers.message, connection, '$default', {}, body),
    );
    connection.inbox = handled.then(() => undefined);
    this.track(handled);
  }

  private closed(connection: Connection): void {
    if (this.connections.get(connection.id) !== connection) return;
    this.connections.delete(connection.id);
    this.track(
      connection.inbox.then(() => this.invoke(this.handlers.disconnect, connection, '$disconnect', {})),
    );
  }

  /** A management-API POST: a message for the client, or the control message that ends the connection. */
  private post(connection: Connection, body: string): void {
    let control: z.infer<typeof controlMessageSchema> | undefined;
    try {
      control = controlMessageSchema.safeParse(JSON.parse(body)).data;
    } catch {
      control = undefined;
    }
    if (control) {
      this.end(connection, control.code, control.reason);
      return;
    }
    this.deliver(connection, body);
  }

  /** A message on the client's socket. */
  private deliver(connection: Connection, body: string | Uint8Array): void {
    connection.lastActiveAt = Date.now();
    connection.socket?.send(body, { binary: false });
  }

  private end(connection: Connection, code: number, reason: string): void {
    if (!connection.socket) {
      connection.closeWith ??= { code, reason };
      return;
    }
    if (connection.socket.readyState === connection.socket.OPEN) connection.socket.close(code, reason);
  }

  private async invoke(
    handler: WebSocketRouteHandler,
    connection: Connection,
    routeKey: RouteKey,
    headers: Record<string, string>,
    body?: string,
  ): Promise<{ ok: boolean; headers: Record<string, string> }> {
    const event = {
      requestContext: { ...requestContextOf(routeKey, connection), authorizer: connection.authorizer },
      headers,
      body,
      isBase64Encoded: false,
    } as unknown as WebSocketEvent;
    try {
      const result = await invokeLocally(routeKey.slice(1), (context) => handler(event, context));
      const answer = typeof result === 'object' ? result : undefined;
      const status = answer?.statusCode ?? 200;
      const headers = Object.fromEntries(
        Object.entries(answer?.headers ?? {}).map(([name, value]) => [name, String(value)]),
      );
      return { ok: status >= 200 && status < 300, headers };
    } catch (error) {
      this.log(`${routeKey} failed: ${error instanceof Error ? error.message : String(error)}`);
      return { ok: false, headers: {} };
    }
  }
}

/**
 * The local fan-out's `@connections` (docs/architecture.md#local-stack-the-same-code-on-embedded-parts): the
 * gateway's own PostToConnection and DeleteConnection, called in the stack's process. Every other function
 * posts through ApiGatewayClientConnections and the SDK to the gateway's HTTP `@connections`, which keeps that
 * adapter exercised end to end; the fan-out posts once per subscriber and event, and there the SDK's call and
 * the loopback HTTP request cost far more than the post itself (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections). What a client
 * receives is the same: the same frame, in the same order, the close control message turned into a close
 * frame.
 */
export class InProcessConnections implements ClientConnections {
  constructor(private readonly gateway: () => LocalWebSocketGateway) {}

  async send(connectionId: string, frame: Frame): Promise<Delivery> {
    return this.gateway().postInProcess(connectionId, frame);
  }

  /** What the control message and DeleteConnection do over HTTP: the client gets a close frame with `code`. */
  async close(connectionId: string, code: CloseCode): Promise<void> {
    this.gateway().closeInProcess(connectionId, code, CLOSE_REASONS[code]);
  }
}

import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  ForbiddenException,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiGatewayClientConnections } from '#adapters/api-gateway/client-connections';
import { CLOSE_CODES, CLOSE_REASONS } from '#contracts/websocket';
import { Frame, frameOf } from '#domain/streaming/messages';

const management = mockClient(ApiGatewayManagementApiClient);
const connections = new ApiGatewayClientConnections(
  new ApiGatewayManagementApiClient({ endpoint: 'https://example.execute-api.us-east-1.amazonaws.com/live' }),
);
const gone = () => new GoneException({ message: 'gone', $metadata: {} });

/** The JSON each PostToConnection carried, in order. */
const posted = () =>
  management
    .commandCalls(PostToConnectionCommand)
    .map((call) =>
      JSON.parse(Buffer.from((call.args[0].input.Data ?? new Uint8Array()) as Uint8Array).toString('utf8')),
    );

afterEach(() => management.reset());

describe('ApiGatewayClientConnections.send', () => {
  it('posts the message as UTF-8 JSON bytes to the connection and returns sent', async () => {
    management.on(PostToConnectionCommand).resolves({});
    const message = {
      channel: 'quotes',
      symbol: 'ES1!',
      data: { symbol: 'ES1!', price: 6010.25, volume: 3 },
    };

    expect(await connections.send('conn-1', new Frame(JSON.stringify(message)))).toBe('sent');

    const [call] = management.commandCalls(PostToConnectionCommand);
    expect(call?.args[0].input.ConnectionId).toBe('conn-1');
    expect(posted()).toEqual([message]);
  });

  it('returns gone when the connection no longer exists (GoneException)', async () => {
    management.on(PostToConnectionCommand).rejects(gone());

    expect(await connections.send('conn-1', frameOf({ op: 'heartbeat' }))).toBe('gone');
  });

  it('rethrows any other error', async () => {
    management.on(PostToConnectionCommand).rejects(new ForbiddenException({ message: 'no', $metadata: {} }));

    await expect(connections.send('conn-1', frameOf({ op: 'heartbeat' }))).rejects.toBeInstanceOf(
      ForbiddenException,
    );
  });
});

describe('ApiGatewayClientConnections.close', () => {
  it('posts the close control message with the code and reason, then deletes the connection', async () => {
    management.on(PostToConnectionCommand).resolves({});
    management.on(DeleteConnectionCommand).resolves({});

    await connections.close('conn-1', CLOSE_CODES.replaced);

    expect(posted()).toEqual([
      {
        op: 'close',
        code: 4409,
        reason: 'connection replaced by a newer connection of the same account',
      },
    ]);
    expect(CLOSE_REASONS[4409]).toBe('connection replaced by a newer connection of the same account');
    expect(management.calls().map((call) => call.args[0].constructor)).toEqual([
      PostToConnectionCommand,
      DeleteConnectionCommand,
    ]);
    expect(management.commandCalls(DeleteConnectionCommand)[0]?.args[0].input).toEqual({
      ConnectionId: 'conn-1',
    });
  });

  it('does not delete a connection that was already gone when the control message was posted', async () => {
    management.on(PostToConnectionCommand).rejects(gone());

    await connections.close('conn-1', CLOSE_CODES.replaced);

    expect(management.commandCalls(DeleteConnectionCommand)).toHaveLength(0);
  });

  it('succeeds when the connection went away between the control message and the delete', async () => {
    management.on(PostToConnectionCommand).resolves({});
    management.on(DeleteConnectionCommand).rejects(gone());

    await expect(connections.close('conn-1', CLOSE_CODES.replaced)).resolves.toBeUndefined();
  });

  it('rethrows a failed delete other than GoneException', async () => {
    management.on(PostToConnectionCommand).resolves({});
    management.on(DeleteConnectionCommand).rejects(new Error('throttled'));

    await expect(connections.close('conn-1', CLOSE_CODES.replaced)).rejects.toThrow('throttled');
  });
});

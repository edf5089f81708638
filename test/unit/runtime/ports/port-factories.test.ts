import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { ApiGatewayClientConnections } from '#adapters/api-gateway/client-connections';
import { SqsDeadLetterSink } from '#adapters/sqs/dead-letter-sink';
import type { TableId } from '#contracts/tables';
import { accessPorts } from '#runtime/ports/access';
import { clientConnectionsAt } from '#runtime/ports/client-connections';
import type { TableContext } from '#runtime/ports/context';
import { deadLetterSinkAt } from '#runtime/ports/dead-letters';
import { marketDataPorts } from '#runtime/ports/market-data';
import { stratPorts } from '#runtime/ports/strat';
import { streamingPorts } from '#runtime/ports/streaming';

/**
 * functions/runtime/ports/ says once which adapter serves which port on which table: a Lambda builds its ports
 * on its environment's tables, the local stack on its own (scripts/local/handlers.ts), with the same factories.
 */
function recordingTables(prefix: string) {
  const read: TableId[] = [];
  const documents = {} as DynamoDBDocumentClient;
  const tables: TableContext = {
    documents: () => documents,
    tableName: (table) => {
      read.push(table);
      return `${prefix}-${table}`;
    },
  };
  const tablesOf = (make: () => unknown) => {
    read.length = 0;
    make();
    return [...read];
  };
  return { tables, tablesOf };
}

describe('the port factories', () => {
  it('build each DynamoDB port on its own tables of the context they are given', () => {
    const { tables, tablesOf } = recordingTables('stack');
    const ports = {
      ...marketDataPorts(tables),
      ...stratPorts(tables),
      ...accessPorts(tables, () => 0),
      ...streamingPorts(tables),
    };
    expect({
      instrumentCatalog: tablesOf(ports.instrumentCatalog),
      priceStore: tablesOf(ports.priceStore),
      barStore: tablesOf(ports.barStore),
      tradeLog: tablesOf(ports.tradeLog),
      ledgerStore: tablesOf(ports.ledgerStore),
      stateStore: tablesOf(ports.stateStore),
      setupStore: tablesOf(ports.setupStore),
      alertFeed: tablesOf(ports.alertFeed),
      breakFeed: tablesOf(ports.breakFeed),
      apiKeyStore: tablesOf(ports.apiKeyStore),
      accountStore: tablesOf(ports.accountStore),
      connectionStore: tablesOf(ports.connectionStore),
      subscriptionStore: tablesOf(ports.subscriptionStore),
      messageRate: tablesOf(ports.messageRate),
    }).toEqual({
      instrumentCatalog: ['instruments'],
      priceStore: ['ledgers'],
      barStore: ['bars'],
      tradeLog: ['tradeLog'],
      ledgerStore: ['ledgers'],
      stateStore: ['states'],
      setupStore: ['setups'],
      alertFeed: ['alerts', 'eventGuards'],
      breakFeed: ['breaks', 'eventGuards'],
      apiKeyStore: ['apiKeys'],
      accountStore: ['accounts'],
      connectionStore: ['connections'],
      subscriptionStore: ['subscriptions'],
      messageRate: ['subscriptions'],
    });
  });

  it('map the physical names of the fan-out’s source tables back to the tables', () => {
    const { tables } = recordingTables('stack');
    expect([...streamingPorts(tables).changeSources()]).toEqual([
      ['stack-states', 'states'],
      ['stack-alerts', 'alerts'],
      ['stack-breaks', 'breaks'],
    ]);
  });

  it('make each port once per context, and separately for two contexts (two stacks in one process)', () => {
    const first = marketDataPorts(recordingTables('one').tables);
    const second = marketDataPorts(recordingTables('two').tables);
    expect(first.priceStore()).toBe(first.priceStore());
    expect(first.priceStore()).not.toBe(second.priceStore());
  });

  it('read the credential cache’s TTL from the context, and keep the heartbeat’s lookup uncached', async () => {
    const { tables } = recordingTables('stack');
    const ttl = vi.fn(() => 10);
    const ports = accessPorts(tables, ttl);
    ports.freshCredentialLookup();
    expect(ttl).not.toHaveBeenCalled();
    ports.credentialLookup();
    expect(ttl).toHaveBeenCalledOnce();
  });

  it('build the @connections and dead-letter clients on the endpoints they are given', async () => {
    const settings = {
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    };
    const connections = clientConnectionsAt(() => ({
      endpoint: 'http://127.0.0.1:1/_local/ws',
      ...settings,
    }));
    expect(connections()).toBeInstanceOf(ApiGatewayClientConnections);
    const deadLetters = deadLetterSinkAt(() => ({
      url: 'http://127.0.0.1:1/_local/sqs/000000000000/trades',
      client: { endpoint: 'http://127.0.0.1:1/_local/sqs', ...settings },
    }));
    expect(deadLetters()).toBeInstanceOf(SqsDeadLetterSink);
  });
});

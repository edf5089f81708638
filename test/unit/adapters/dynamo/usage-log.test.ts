import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { DynamoUsageLog } from '#adapters/dynamo/usage-log';
import { USAGE_RETENTION_DAYS } from '#contracts/tables';
import type { UsageRow } from '#domain/streaming/ports';

const documents = mockClient(DynamoDBDocumentClient);
const log = new DynamoUsageLog(documentClientFor(new DynamoDBClient({})), 'usage');

const usage = (overrides: Partial<UsageRow> = {}): UsageRow => ({
  accountId: 'acme',
  keyId: 'key-1',
  channel: 'quotes',
  symbol: 'AAPL',
  time: '2024-11-26T15:30:01.500Z',
  messageId: '2024-11-26T15:30:00.000Z#ev-1',
  ...overrides,
});

/** The rows' push time plus USAGE_RETENTION_DAYS, in seconds. */
const EXPIRES_AT = Math.floor(Date.parse('2024-11-26T15:30:01.500Z') / 1000) + USAGE_RETENTION_DAYS * 86_400;

const puts = () =>
  documents
    .commandCalls(BatchWriteCommand)
    .flatMap((call) => call.args[0].input.RequestItems?.usage ?? [])
    .map((request) => request.PutRequest?.Item);

afterEach(() => documents.reset());

describe('DynamoUsageLog.record', () => {
  it('puts one ws_message row per usage row', async () => {
    documents.on(BatchWriteCommand).resolves({});
    const breakRow = usage({ channel: 'alerts.simultaneous_breaks', symbol: undefined, messageId: 'x#ev-2' });

    await log.record([usage(), usage({ accountId: 'globex', keyId: 'key-9' }), breakRow]);

    expect(puts()).toEqual([
      { ...usage(), type: 'ws_message', expiresAt: EXPIRES_AT },
      { ...usage({ accountId: 'globex', keyId: 'key-9' }), type: 'ws_message', expiresAt: EXPIRES_AT },
      { ...breakRow, type: 'ws_message', expiresAt: EXPIRES_AT },
    ]);
  });

  it('writes one row per account and message id when the batch repeats a key', async () => {
    documents.on(BatchWriteCommand).resolves({});

    await log.record([
      usage({ keyId: 'old-key' }),
      usage({ keyId: 'new-key' }),
      usage({ messageId: 'other' }),
    ]);

    expect(puts()).toEqual([
      { ...usage({ keyId: 'new-key' }), type: 'ws_message', expiresAt: EXPIRES_AT },
      { ...usage({ messageId: 'other' }), type: 'ws_message', expiresAt: EXPIRES_AT },
    ]);
  });

  it('sends nothing when there is nothing to record', async () => {
    await log.record([]);

    expect(documents.calls()).toHaveLength(0);
  });
});

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { USAGE_RETENTION_DAYS } from '#contracts/tables';
import type { UsageLog, UsageRow } from '#domain/streaming/ports';
import { batchPutAll } from './batch.ts';

/**
 * The billing rows: `type` is `ws_message` (docs/websocket.md#metering); a row's key makes a redelivered
 * event overwrite it. Each expires USAGE_RETENTION_DAYS after its push.
 */
export class DynamoUsageLog implements UsageLog {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async record(rows: readonly UsageRow[]): Promise<void> {
    // Keyed by account and message: a batch must not repeat a key (two connections of an account, mid-eviction).
    const unique = new Map(rows.map((row) => [`${row.accountId} ${row.messageId}`, row]));
    await batchPutAll(
      this.client,
      this.tableName,
      [...unique.values()].map((row) => ({
        ...row,
        type: 'ws_message',
        expiresAt: Math.floor(Date.parse(row.time) / 1000) + USAGE_RETENTION_DAYS * 86_400,
      })),
    );
  }
}

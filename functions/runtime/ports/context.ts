import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { TableId } from '#contracts/tables';

/**
 * What the DynamoDB ports are built on: a document client and each table's physical name. The port modules
 * beside this one export factories over it, so which adapter serves which port, on which table, is said once:
 * a Lambda builds its ports on AWS_TABLES (aws-tables.ts), the local stack on its own dynalite client and
 * table names (scripts/local/handlers.ts), and several stacks in one process each on theirs.
 */
export interface TableContext {
  /** The document client, made on first use. */
  readonly documents: () => DynamoDBDocumentClient;
  /** A table's physical name. */
  readonly tableName: (table: TableId) => string;
}

/**
 * An AWS SDK client's settings where they are not the SDK's defaults: the endpoint it calls, and for a stand-in
 * (the local stack's loopback `@connections` API and SQS queue) its region and credentials.
 */
export interface SdkClientSettings {
  readonly endpoint?: string;
  readonly region?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

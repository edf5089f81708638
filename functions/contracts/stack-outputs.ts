import type { TableId } from './tables.ts';

/** The deployed stack's name and the outputs operators' commands (keys, seed) read to find its parts. */
export const STACK_NAME = 'MarketDataAlerts';

export const STACK_OUTPUTS = {
  restApiUrl: 'RestApiUrl',
  restApiId: 'RestApiId',
  usagePlanId: 'UsagePlanId',
  tradeStreamName: 'TradeStreamName',
  /** Where the ingest path sets records apart (`npm run redrive -- --stack`). */
  tradeDeadLetterQueueUrl: 'TradeDeadLetterQueueUrl',
  /** The `wss://` URL partners connect to: the custom domain's when configured, else the stage's. */
  webSocketUrl: 'WebSocketUrl',
  webSocketApiId: 'WebSocketApiId',
  /** The bucket of the usage rows Firehose delivers (`npm run usage -- --stack`). */
  usageBucketName: 'UsageBucketName',
  /** The web console's address, with `-c console=true` (docs/console.md#on-aws). */
  consoleUrl: 'ConsoleUrl',
} as const;

export function tableOutputName(id: TableId): string {
  return `${id}TableName`;
}

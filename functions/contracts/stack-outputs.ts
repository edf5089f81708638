import type { TableId } from './tables.ts';

/** The deployed stack's name and the outputs operators' commands (keys, seed) read to find its parts. */
export const STACK_NAME = 'MarketDataAlerts';

export const STACK_OUTPUTS = {
  restApiUrl: 'RestApiUrl',
  restApiId: 'RestApiId',
  usagePlanId: 'UsagePlanId',
  tradeStreamName: 'TradeStreamName',
} as const;

export function tableOutputName(id: TableId): string {
  return `${id}TableName`;
}

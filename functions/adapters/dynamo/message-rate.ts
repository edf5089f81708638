import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CLIENT_MESSAGE_RATE } from '#contracts/websocket';
import { messageWindow } from '#domain/streaming/message-allowance';
import type { MessageRateLimiter } from '#domain/streaming/ports';

/** The counter's row in the subscriptions table: a topic no channel has, one partition per connection. */
export const RATE_TOPIC_PREFIX = '#rate#';
/** A counter outlives its connection by no more than this. */
const COUNTER_TTL_SECONDS = 3_600;

/**
 * A connection's client messages counted per fixed window in one row of the subscriptions table
 * (`topic` = `#rate#<connectionId>`): an atomic ADD while the window is the current one, else the row starts
 * the new window. One write per message; no read.
 */
export class DynamoMessageRate implements MessageRateLimiter {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async count(connectionId: string, nowMs: number): Promise<number> {
    const window = messageWindow(nowMs);
    const key = { topic: `${RATE_TOPIC_PREFIX}${connectionId}`, connectionId };
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const output = await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: key,
            UpdateExpression: 'ADD messages :one',
            ConditionExpression: 'messageWindow = :window',
            ExpressionAttributeValues: { ':one': 1, ':window': window },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return output.Attributes?.messages as number;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...key,
              messageWindow: window,
              messages: 1,
              expiresAt: Math.floor(nowMs / 1000) + COUNTER_TTL_SECONDS,
            },
            ConditionExpression: 'attribute_not_exists(messageWindow) OR messageWindow < :window',
            ExpressionAttributeValues: { ':window': window },
          }),
        );
        return 1;
      } catch (error) {
        // Another message of the connection started the window meanwhile: count this one in it.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    // Two windows turned under it: counted as just over the allowance (refused, answered).
    return CLIENT_MESSAGE_RATE.messages + 1;
  }
}

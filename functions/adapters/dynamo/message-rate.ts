import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { CLIENT_MESSAGE_RATE } from '#contracts/websocket';
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

  async admit(connectionId: string, nowMs: number): Promise<boolean> {
    const window = Math.floor(nowMs / (CLIENT_MESSAGE_RATE.windowSeconds * 1000));
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
        return (output.Attributes?.messages as number) <= CLIENT_MESSAGE_RATE.messages;
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
        return true;
      } catch (error) {
        // Another message of the connection started the window meanwhile: count this one in it.
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    return false;
  }
}

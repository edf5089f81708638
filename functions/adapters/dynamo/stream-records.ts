import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { SourceChange } from '#domain/streaming/channel-events';

/** The table a stream record comes from: its ARN reads `arn:aws:dynamodb:...:table/<name>/stream/<label>`. */
export function tableNameOf(record: DynamoDBRecord): string | undefined {
  return /:table\/([^/]+)\/stream\//.exec(record.eventSourceARN ?? '')?.[1];
}

const plain = (image: unknown) => (image ? unmarshall(image as Record<string, AttributeValue>) : undefined);

/** A DynamoDB Streams record as the domain's change of a source table. */
export function sourceChangeOf(
  record: DynamoDBRecord,
  table: SourceChange['table'],
): SourceChange | undefined {
  const { eventID, eventName, dynamodb } = record;
  if (!eventID || !eventName || !dynamodb) return undefined;
  return {
    table,
    eventId: eventID,
    recordedAtMs: (dynamodb.ApproximateCreationDateTime ?? 0) * 1000,
    kind: eventName,
    newItem: plain(dynamodb.NewImage),
    oldItem: plain(dynamodb.OldImage),
  };
}

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { documentClientFor } from '#adapters/dynamo/document-client';
import { memo } from './memo.ts';
import {
  DYNAMO_CALLS_IN_FLIGHT,
  instrumentedClient,
  SDK_CALL_TIMEOUTS,
  socketsPerHost,
} from './sdk-clients.ts';

/** The DynamoDB document client of a Lambda instance, made on first use. */
export const documentClient = memo(() =>
  documentClientFor(
    instrumentedClient(
      new DynamoDBClient({
        requestHandler: { ...SDK_CALL_TIMEOUTS, ...socketsPerHost(DYNAMO_CALLS_IN_FLIGHT) },
      }),
    ),
  ),
);

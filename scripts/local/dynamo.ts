import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { documentClientFor } from '#adapters/dynamo/document-client';

/** Credentials and region for talking to the local DynamoDB; dynalite accepts any. */
export const LOCAL_AWS = { region: 'us-east-1', accessKeyId: 'local', secretAccessKey: 'local' } as const;

export interface LocalDynamo {
  readonly endpoint: string;
  /** DynamoDB API calls served so far (benchmarks report calls per request). */
  requestCount(): number;
  stop(): Promise<void>;
}

/**
 * dynalite: DynamoDB's wire protocol on LevelDB (ARCHITECTURE A5). With `path` the data is kept there
 * between starts; without, it lives in memory (tests).
 */
export async function startLocalDynamo(options: { port: number; path?: string }): Promise<LocalDynamo> {
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let requests = 0;
  server.on('request', () => {
    requests++;
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requestCount: () => requests,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: LOCAL_AWS.region,
    credentials: { accessKeyId: LOCAL_AWS.accessKeyId, secretAccessKey: LOCAL_AWS.secretAccessKey },
  });
}

export function localDocumentClient(endpoint: string): DynamoDBDocumentClient {
  return documentClientFor(localDynamoClient(endpoint));
}

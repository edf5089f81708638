import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AttributeValue } from 'aws-lambda';
import { documentClientFor } from '#adapters/dynamo/document-client';

/** Credentials and region for talking to the local DynamoDB; dynalite accepts any. */
export const LOCAL_AWS = { region: 'us-east-1', accessKeyId: 'local', secretAccessKey: 'local' } as const;

/**
 * A write committed to a captured table, as dynalite stored it (DynamoDB's AttributeValue JSON): no old
 * image for an insert, no new image for a delete. dynalite has no Streams; change-streams.ts turns these
 * into the stream records Lambda would deliver
 * (docs/architecture.md#local-stack-the-same-code-on-embedded-parts).
 */
export interface CapturedChange {
  readonly table: string;
  readonly oldImage?: Record<string, AttributeValue>;
  readonly newImage?: Record<string, AttributeValue>;
}

export interface LocalDynamoOptions {
  /** 0 for a free port. */
  readonly port: number;
  /** Where the data is kept between starts; in memory without. */
  readonly path?: string;
  /** Tables whose committed writes are reported to `onChange`, each in commit order per key. */
  readonly captureTables?: readonly string[];
  readonly onChange?: (change: CapturedChange) => void;
}

export interface LocalDynamo {
  readonly endpoint: string;
  /**
   * DynamoDB API calls served so far (benchmarks report calls per request). Its answer comes after every
   * change the server reported before it, so once it resolves `onChange` has seen every write whose
   * response arrived before the call.
   */
  requestCount(): Promise<number>;
  stop(): Promise<void>;
}

const SERVER_SCRIPT = fileURLToPath(new URL('./dynalite-server.mjs', import.meta.url));

type ServerMessage =
  | { type: 'listening'; port: number }
  | { type: 'count'; requests: number }
  | ({ type: 'change' } & CapturedChange)
  | { type: 'error'; message: string };

/**
 * dynalite: DynamoDB's wire protocol on LevelDB
 * (docs/architecture.md#local-stack-the-same-code-on-embedded-parts), in a child process so that it has a
 * core of its own. With `path` the data is kept there between starts; without, it lives in memory. The
 * committed writes to `captureTables` are reported to `onChange`, the local stand-in for their Streams.
 */
export async function startLocalDynamo(options: LocalDynamoOptions): Promise<LocalDynamo> {
  const { onChange } = options;
  const captureTables = onChange ? (options.captureTables ?? []) : [];
  const child = fork(
    SERVER_SCRIPT,
    [String(options.port), options.path ?? '', JSON.stringify(captureTables)],
    { stdio: 'inherit' },
  );
  if (onChange && captureTables.length > 0) {
    child.on('message', (message: ServerMessage) => {
      if (message.type !== 'change') return;
      const { table, oldImage, newImage } = message;
      onChange({ table, ...(oldImage ? { oldImage } : {}), ...(newImage ? { newImage } : {}) });
    });
  }
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the local DynamoDB exited (${code}) before listening`)));
    child.on('message', (message: ServerMessage) => {
      if (message.type === 'listening') resolve(message.port);
      if (message.type === 'error') reject(new Error(message.message));
    });
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    requestCount: () =>
      new Promise((resolve) => {
        const listener = (message: ServerMessage) => {
          if (message.type !== 'count') return;
          child.off('message', listener);
          resolve(message.requests);
        };
        child.on('message', listener);
        child.send({ type: 'count' });
      }),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.send({ type: 'stop' });
      await exited;
    },
  };
}

type AuthScheme = NonNullable<DynamoDBClientConfig['httpAuthSchemes']>[number];

/**
 * dynalite checks that a request carries a well-formed SigV4 `Authorization` header and a date, never the
 * signature itself. Signing a call costs about 150 µs of CPU (the body's SHA-256, the canonical request), on
 * the one thread the whole local stack shares, so its clients send a fixed header of the right form instead
 * (docs/architecture.md#local-stack-the-same-code-on-embedded-parts). The requests are otherwise DynamoDB's
 * own wire protocol, as the SDK builds them.
 */
const SIGNATURE_DAY = '20240101';
const LOCAL_SIGNATURE = {
  date: `${SIGNATURE_DAY}T000000Z`,
  authorization:
    `AWS4-HMAC-SHA256 Credential=${LOCAL_AWS.accessKeyId}/${SIGNATURE_DAY}/${LOCAL_AWS.region}/dynamodb/aws4_request, ` +
    `SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
} as const;

const UNSIGNED_FOR_DYNALITE: AuthScheme = {
  schemeId: 'aws.auth#sigv4',
  identityProvider: (config) => config.getIdentityProvider('aws.auth#sigv4'),
  signer: {
    sign: async (request) => {
      const headers = (request as { headers: Record<string, string> }).headers;
      headers['x-amz-date'] = LOCAL_SIGNATURE.date;
      headers.authorization = LOCAL_SIGNATURE.authorization;
      return request;
    },
  },
};

export function localDynamoClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({
    endpoint,
    region: LOCAL_AWS.region,
    credentials: { accessKeyId: LOCAL_AWS.accessKeyId, secretAccessKey: LOCAL_AWS.secretAccessKey },
    httpAuthSchemes: [UNSIGNED_FOR_DYNALITE],
  });
}

export function localDocumentClient(endpoint: string): DynamoDBDocumentClient {
  return documentClientFor(localDynamoClient(endpoint));
}

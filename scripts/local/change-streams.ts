import { randomUUID } from 'node:crypto';
import type {
  AttributeValue,
  Context,
  DynamoDBBatchResponse,
  DynamoDBRecord,
  DynamoDBStreamEvent,
} from 'aws-lambda';
import { TABLE_IDS, TABLES } from '#contracts/tables';
import { FAN_OUT } from '#contracts/websocket';
import { type CapturedChange, LOCAL_AWS } from './dynamo.ts';
import { ShardedEventSource, withDefaults } from './sharded-event-source.ts';
import { localTableName } from './tables.ts';

/**
 * The local stand-in for the DynamoDB Streams of the stream tables and their event source mappings to the
 * fan-out (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections,
 * docs/architecture.md#local-stack-the-same-code-on-embedded-parts). dynalite has no Streams: it reports each
 * committed write to a captured table (dynamo.ts `onChange`), and `capture` turns it into the record Lambda
 * would deliver. Each table has a stream of its own, so a batch never mixes tables; a stream is sharded by
 * partition key, so each key's records arrive in commit order. Batching, bisect on error, partial batch
 * responses (`itemIdentifier` is the SequenceNumber) and dead letters are sharded-event-source.ts's, shared
 * with the trade stream.
 */
export type ChangeConsumer = (
  event: DynamoDBStreamEvent,
  context?: Context,
  // biome-ignore lint/suspicious/noConfusingVoidType: Lambda's DynamoDBStreamHandler returns `DynamoDBBatchResponse | void`.
) => Promise<DynamoDBBatchResponse | undefined | void>;

export interface StreamTable {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
}

export interface LocalChangeStreamsOptions {
  readonly tables: readonly StreamTable[];
  /** Shards per table; by default the mapping's parallelization factor, which also batches by key. */
  readonly shards?: number;
  readonly batchSize?: number;
  readonly batchWindowMs?: number;
  /** Deliveries of one record before it is dead-lettered: by default the first and the retries. */
  readonly maxAttempts?: number;
  /** The service clock, Unix ms: a record's ApproximateCreationDateTime (default: the wall clock). */
  readonly nowMs?: () => number;
}

export interface ChangeDeadLetter {
  readonly table: string;
  readonly shardId: string;
  readonly sequenceNumber: string;
  readonly keys: Record<string, AttributeValue>;
  readonly reason: string;
}

type StreamImage = Record<string, AttributeValue>;

/**
 * FAN_OUT's window is zero; a few milliseconds let a burst of writes (one ingest batch) share a batch, as
 * Lambda's polling of a stream does, without delaying a push noticeably.
 */
const LOCAL_BATCH_WINDOW_MS = 10;

/** AWS labels a stream with its creation time; every local stream has this one. */
const STREAM_LABEL = '2024-01-01T00:00:00.000';

export function localStreamArn(table: string): string {
  return `arn:aws:dynamodb:${LOCAL_AWS.region}:000000000000:table/${table}/stream/${STREAM_LABEL}`;
}

/** The local tables that have a stream on AWS, with their keys: what the local stack captures. */
export function localStreamTables(): StreamTable[] {
  return TABLE_IDS.flatMap((id) => {
    const definition = TABLES[id];
    if (!('stream' in definition)) return [];
    const sortKey = 'sortKey' in definition ? definition.sortKey.name : undefined;
    return [
      {
        name: localTableName(id),
        partitionKey: definition.partitionKey.name,
        ...(sortKey ? { sortKey } : {}),
      },
    ];
  });
}

interface TableStream {
  readonly table: StreamTable;
  readonly arn: string;
  readonly source: ShardedEventSource<DynamoDBRecord, DynamoDBStreamEvent>;
}

export class LocalChangeStreams {
  readonly deadLetters: ChangeDeadLetter[] = [];
  private readonly streams = new Map<string, TableStream>();
  private stopped = false;

  private readonly nowMs: () => number;

  constructor(consumer: ChangeConsumer, options: LocalChangeStreamsOptions) {
    const { tables, nowMs, ...rest } = options;
    this.nowMs = nowMs ?? Date.now;
    const sourceOptions = withDefaults(
      {
        shards: FAN_OUT.batch.parallelizationFactor,
        batchSize: FAN_OUT.batch.size,
        batchWindowMs: LOCAL_BATCH_WINDOW_MS,
        maxAttempts: FAN_OUT.batch.retryAttempts + 1,
      },
      rest,
    );
    for (const table of tables) {
      const source = new ShardedEventSource<DynamoDBRecord, DynamoDBStreamEvent>(
        {
          name: `the local stream of ${table.name}`,
          itemIdentifier: (record) => record.dynamodb?.SequenceNumber ?? '',
          toEvent: (records) => ({ Records: records }),
          consume: (event) => consumer(event),
          deadLetter: (record, shardId, reason) => {
            this.deadLetters.push({
              table: table.name,
              shardId,
              sequenceNumber: record.dynamodb?.SequenceNumber ?? '',
              keys: record.dynamodb?.Keys ?? {},
              reason,
            });
          },
        },
        sourceOptions,
      );
      this.streams.set(table.name, { table, arn: localStreamArn(table.name), source });
    }
  }

  /**
   * Appends a committed write to its table's stream, on the shard of its partition key, and returns the
   * record it will deliver. A change without an image is skipped, and so is any change once the
   * streams are stopped (as a disabled mapping delivers nothing); a table without a stream is an error.
   */
  capture(change: CapturedChange): DynamoDBRecord | undefined {
    const stream = this.streams.get(change.table);
    if (!stream) throw new Error(`no local stream for table ${change.table}`);
    const { oldImage, newImage } = change;
    const image = newImage ?? oldImage;
    if (this.stopped || !image) return undefined;
    const keys = keysOf(stream.table, image);
    return stream.source.put(JSON.stringify(keys[stream.table.partitionKey] ?? null), ({ sequenceNumber }) =>
      streamRecord(stream.arn, keys, sequenceNumber, oldImage, newImage, this.nowMs()),
    );
  }

  /** Resolves once every change captured so far has been delivered or dead-lettered. */
  async flush(): Promise<void> {
    await Promise.all([...this.streams.values()].map(({ source }) => source.flush()));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.streams.values()].map(({ source }) => source.stop()));
  }
}

function keysOf(table: StreamTable, image: StreamImage): StreamImage {
  const keys: StreamImage = {};
  for (const name of [table.partitionKey, table.sortKey]) {
    const value = name === undefined ? undefined : image[name];
    if (name !== undefined && value !== undefined) keys[name] = value;
  }
  return keys;
}

/** A DynamoDB Streams record as Lambda delivers it, in its field order. */
function streamRecord(
  arn: string,
  keys: StreamImage,
  sequenceNumber: string,
  oldImage: StreamImage | undefined,
  newImage: StreamImage | undefined,
  createdAtMs: number,
): DynamoDBRecord {
  const images = { ...(newImage ? { NewImage: newImage } : {}), ...(oldImage ? { OldImage: oldImage } : {}) };
  return {
    eventID: randomUUID().replaceAll('-', ''),
    eventName: oldImage ? (newImage ? 'MODIFY' : 'REMOVE') : 'INSERT',
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: LOCAL_AWS.region,
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(createdAtMs / 1000),
      Keys: keys,
      ...images,
      SequenceNumber: sequenceNumber,
      SizeBytes: Buffer.byteLength(JSON.stringify({ Keys: keys, ...images })),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
    eventSourceARN: arn,
  };
}

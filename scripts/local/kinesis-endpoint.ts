import { once } from 'node:events';
import { createServer, type Http2Server, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec } from '@smithy/core/event-streams';

const utf8 = new TextEncoder();
const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => utf8.encode(text),
);

export interface EndpointRecord {
  readonly partitionKey: string;
  readonly data: string;
}

/** A SubscribeToShard call as the fake received it. */
export interface SubscribeCall {
  readonly shardId: string;
  readonly consumerArn: string;
  readonly startingPosition: { readonly Type: string; readonly SequenceNumber?: string };
}

interface StoredRecord extends EndpointRecord {
  readonly sequenceNumber: string;
  readonly arrivedAtMs: number;
}

interface Subscription {
  readonly shardId: string;
  readonly stream: ServerHttp2Stream;
  /** Index of the next record of the shard to send. */
  next: number;
  heartbeat?: NodeJS.Timeout;
}

export interface LocalKinesisEndpointOptions {
  readonly shards: readonly string[];
  /** How often a subscription gets an event, records or not (Kinesis: about every 5 s). */
  readonly eventEveryMs?: number;
  /** A subscription ends after this many events, as Kinesis ends one after 5 minutes. */
  readonly eventsPerSubscription?: number;
}

/**
 * A local Kinesis Data Streams endpoint for the windowed ingest consumer's process
 * (functions/containers/ingest-consumer.ts: its process test and `npm run bench -- consumer-process`), speaking
 * what the AWS SDK speaks to Kinesis: JSON 1.1 calls
 * over HTTP/2 (cleartext here), and SubscribeToShard's answer as an event stream (`initial-response`, then a
 * `SubscribeToShardEvent` every `eventEveryMs` with the records put since, each with its sequence number and
 * arrival time, the continuation and how far behind it is). It serves ListShards and SubscribeToShard, and
 * ends a subscription after `eventsPerSubscription` events, as Kinesis ends one after 5 minutes. `split`
 * reshards as an on-demand stream does when its traffic grows: the parent is closed, its readers get a last
 * event with no continuation that names its two children, and the listing shows the children with their
 * parent.
 */
export class LocalKinesisEndpoint {
  readonly subscribeCalls: SubscribeCall[] = [];
  /** Records sent in events, every subscription's: more than were put means some were read twice. */
  recordsSent = 0;
  private readonly records = new Map<string, StoredRecord[]>();
  /** Closed shards and their children; a child's parent. */
  private readonly children = new Map<string, readonly string[]>();
  private readonly parents = new Map<string, string>();
  private readonly subscriptions = new Set<Subscription>();
  private sequence = 1_000;

  private constructor(
    private readonly server: Http2Server,
    private readonly options: LocalKinesisEndpointOptions,
  ) {
    for (const shardId of options.shards) this.records.set(shardId, []);
    server.on('stream', (stream, headers) => this.answer(stream, headers));
  }

  static async start(options: LocalKinesisEndpointOptions): Promise<LocalKinesisEndpoint> {
    const server = createServer();
    const fake = new LocalKinesisEndpoint(server, options);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return fake;
  }

  /** The endpoint to give the SDK (`AWS_ENDPOINT_URL_KINESIS`). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Puts records on a shard; subscriptions get them with their next event. Returns their sequence numbers. */
  put(shardId: string, records: readonly EndpointRecord[]): string[] {
    const stored = this.records.get(shardId);
    if (!stored) throw new Error(`no shard ${shardId}`);
    if (this.children.has(shardId)) throw new Error(`shard ${shardId} is closed`);
    return records.map((record) => {
      this.sequence += 1;
      const sequenceNumber = String(this.sequence).padStart(20, '0');
      stored.push({ ...record, sequenceNumber, arrivedAtMs: Date.now() });
      return sequenceNumber;
    });
  }

  /**
   * Closes `parentId` and opens two children: its readers get what is left of it, then its last event naming
   * them, and records put from now on go to the children.
   */
  split(parentId: string, childIds: readonly [string, string]): void {
    if (!this.records.has(parentId) || this.children.has(parentId))
      throw new Error(`cannot split ${parentId}`);
    this.children.set(parentId, childIds);
    for (const child of childIds) {
      this.records.set(child, []);
      this.parents.set(child, parentId);
    }
  }

  async close(): Promise<void> {
    for (const subscription of this.subscriptions) this.end(subscription);
    this.server.close();
    await once(this.server, 'close');
  }

  private async answer(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
    const target = String(headers['x-amz-target'] ?? '');
    if (target.endsWith('.ListShards')) {
      this.json(stream, {
        Shards: [...this.records.keys()].map((ShardId) => ({
          ShardId,
          ...(this.parents.has(ShardId) ? { ParentShardId: this.parents.get(ShardId) } : {}),
          HashKeyRange: { StartingHashKey: '0', EndingHashKey: '1' },
          SequenceNumberRange: { StartingSequenceNumber: '0' },
        })),
      });
    } else if (target.endsWith('.SubscribeToShard')) {
      this.subscribe(stream, body as unknown as SubscribeRequest);
    } else {
      this.json(stream, { __type: 'UnknownOperationException', message: target }, 400);
    }
  }

  private subscribe(stream: ServerHttp2Stream, request: SubscribeRequest): void {
    this.subscribeCalls.push({
      shardId: request.ShardId,
      consumerArn: request.ConsumerARN,
      startingPosition: request.StartingPosition,
    });
    const stored = this.records.get(request.ShardId) ?? [];
    const after = request.StartingPosition.SequenceNumber;
    const next =
      request.StartingPosition.Type === 'AFTER_SEQUENCE_NUMBER' && after !== undefined
        ? stored.findIndex((record) => BigInt(record.sequenceNumber) > BigInt(after))
        : 0;
    const subscription: Subscription = {
      shardId: request.ShardId,
      stream,
      next: next === -1 ? stored.length : next,
    };
    this.subscriptions.add(subscription);
    stream.respond({ ':status': 200, 'content-type': 'application/vnd.amazon.eventstream' });
    stream.write(this.event('initial-response', {}));
    let events = 0;
    const limit = this.options.eventsPerSubscription ?? Number.POSITIVE_INFINITY;
    const send = () => {
      const closedInto = this.children.get(request.ShardId);
      const records = stored.slice(subscription.next);
      subscription.next = stored.length;
      this.recordsSent += records.length;
      const last = stored.at(-1)?.sequenceNumber ?? '0';
      stream.write(
        this.event('SubscribeToShardEvent', {
          Records: records.map((record) => ({
            SequenceNumber: record.sequenceNumber,
            ApproximateArrivalTimestamp: record.arrivedAtMs / 1000,
            Data: Buffer.from(record.data, 'utf8').toString('base64'),
            PartitionKey: record.partitionKey,
          })),
          // A closed shard's last event: no continuation, and its children with their parent.
          ...(closedInto
            ? {
                ChildShards: closedInto.map((ShardId) => ({
                  ShardId,
                  ParentShards: [request.ShardId],
                  HashKeyRange: { StartingHashKey: '0', EndingHashKey: '1' },
                })),
              }
            : { ContinuationSequenceNumber: last }),
          MillisBehindLatest: 0,
        }),
      );
      events += 1;
      if (closedInto || events >= limit) this.end(subscription);
    };
    subscription.heartbeat = setInterval(send, this.options.eventEveryMs ?? 50);
    stream.on('close', () => this.end(subscription));
    stream.on('error', () => this.end(subscription));
  }

  private end(subscription: Subscription): void {
    clearInterval(subscription.heartbeat);
    if (!this.subscriptions.delete(subscription)) return;
    if (!subscription.stream.closed) subscription.stream.end();
  }

  private event(type: string, payload: unknown): Uint8Array {
    return codec.encode({
      headers: {
        ':message-type': { type: 'string', value: 'event' },
        ':event-type': { type: 'string', value: type },
        ':content-type': { type: 'string', value: 'application/json' },
      },
      body: utf8.encode(JSON.stringify(payload)),
    });
  }

  private json(stream: ServerHttp2Stream, body: unknown, status = 200): void {
    stream.respond({ ':status': status, 'content-type': 'application/x-amz-json-1.1' });
    stream.end(JSON.stringify(body));
  }
}

interface SubscribeRequest {
  readonly ConsumerARN: string;
  readonly ShardId: string;
  readonly StartingPosition: { readonly Type: string; readonly SequenceNumber?: string };
}

import {
  type _Record,
  AccessDeniedException,
  InternalFailureException,
  KinesisClient,
  LimitExceededException,
  ListShardsCommand,
  ResourceInUseException,
  ResourceNotFoundException,
  type Shard,
  SubscribeToShardCommand,
  type SubscribeToShardCommandInput,
  type SubscribeToShardEvent,
  type SubscribeToShardEventStream,
} from '@aws-sdk/client-kinesis';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ShardReader, type ShardReaderOptions } from '#adapters/kinesis/shard-reader';
import type { ShardRecord } from '#use-cases/ingest-windows';

const kinesis = mockClient(KinesisClient);
const STREAM_ARN = 'arn:aws:kinesis:us-east-1:123456789012:stream/trades';
const CONSUMER_ARN = `${STREAM_ARN}/consumer/ingest:1764201600`;
/** Short timings; Math.random is 0, so each backoff wait is half its ceiling: 100, 200, 400, 400 ms. */
const TIMINGS = { silentAfterMs: 1_000, retryBaseMs: 200, retryMaxMs: 800 };

const shard = (ShardId: string, ParentShardId?: string, AdjacentParentShardId?: string): Shard => ({
  ShardId,
  ParentShardId,
  AdjacentParentShardId,
  HashKeyRange: { StartingHashKey: '0', EndingHashKey: '1' },
  SequenceNumberRange: { StartingSequenceNumber: '0' },
});
const record = (SequenceNumber: string, text = `trade ${SequenceNumber}`): _Record => ({
  SequenceNumber,
  PartitionKey: 'AAPL',
  Data: new TextEncoder().encode(text),
});
const event = (
  records: _Record[],
  continuation: string | undefined,
  more: Partial<SubscribeToShardEvent> = {},
): SubscribeToShardEventStream => ({
  SubscribeToShardEvent: {
    Records: records,
    ContinuationSequenceNumber: continuation,
    MillisBehindLatest: 0,
    ...more,
  },
});
/** A shard's last event: no ContinuationSequenceNumber, and the children it splits or merges into. */
const lastEvent = (records: _Record[], children: { ShardId: string; ParentShards: string[] }[]) =>
  event(records, undefined, {
    ChildShards: children.map((child) => ({
      ...child,
      HashKeyRange: { StartingHashKey: '0', EndingHashKey: '1' },
    })),
  });

/** The abort signal the reader passed with the client's `index`th SubscribeToShard call. */
function signalOfCall(index: number): AbortSignal | undefined {
  const args = kinesis.commandCalls(SubscribeToShardCommand)[index]?.args as unknown[] | undefined;
  return (args?.[1] as { abortSignal?: AbortSignal } | undefined)?.abortSignal;
}

/** One SubscribeToShard call's event stream, fed by the test. */
class Subscription {
  private readonly queue: ({ event: SubscribeToShardEventStream } | { error: unknown } | { end: true })[] =
    [];
  private wake: (() => void) | undefined;

  constructor(
    readonly input: SubscribeToShardCommandInput,
    /** The call's index among the client's SubscribeToShard calls. */
    readonly call: number,
  ) {}

  get startingPosition() {
    return this.input.StartingPosition;
  }

  /** The abort signal the reader passed with this call. */
  get signal(): AbortSignal | undefined {
    return signalOfCall(this.call);
  }

  push(...events: SubscribeToShardEventStream[]): this {
    for (const item of events) this.queue.push({ event: item });
    this.wake?.();
    return this;
  }

  fail(error: unknown): void {
    this.queue.push({ error });
    this.wake?.();
  }

  /** The subscription's end (its 5 minutes, or the server closing it). */
  end(): void {
    this.queue.push({ end: true });
    this.wake?.();
  }

  async *events(): AsyncGenerator<SubscribeToShardEventStream> {
    for (;;) {
      while (this.queue.length === 0) await new Promise<void>((resolve) => (this.wake = resolve));
      const item = this.queue.shift();
      if (!item || 'end' in item) return;
      if ('error' in item) throw item.error;
      yield item.event;
    }
  }
}

let subscriptions: Subscription[];
/** What the next SubscribeToShard calls of a shard do instead of subscribing: fail, or never answer. */
let refusals: Map<string, (Error | 'hang')[]>;

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  vi.spyOn(Math, 'random').mockReturnValue(0);
  subscriptions = [];
  refusals = new Map();
  let calls = 0;
  kinesis.on(SubscribeToShardCommand).callsFake(async (input: SubscribeToShardCommandInput) => {
    const call = calls++;
    const refusal = refusals.get(input.ShardId ?? '')?.shift();
    if (refusal === 'hang') return new Promise(() => {});
    if (refusal) throw refusal;
    const subscription = new Subscription(input, call);
    subscriptions.push(subscription);
    return { EventStream: subscription.events() };
  });
});

const running: { reader: ShardReader; done: Promise<unknown> }[] = [];
afterEach(async () => {
  for (const { reader, done } of running.splice(0)) {
    reader.stop();
    await done;
  }
  kinesis.reset();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function refuse(shardId: string, ...outcomes: (Error | 'hang')[]): void {
  refusals.set(shardId, [...(refusals.get(shardId) ?? []), ...outcomes]);
}

/** Lets the reader's promises run (timers stay where they are) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 200; turn++) {
    if (check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`never happened: ${what}`);
}

/** Moves the fake clock on, letting the reader's promises run at each timer. */
async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await new Promise((resolve) => setImmediate(resolve));
}

const subscriptionsOf = (shardId: string) => subscriptions.filter(({ input }) => input.ShardId === shardId);
const callsOf = (shardId: string) =>
  kinesis.commandCalls(SubscribeToShardCommand).filter((call) => call.args[0].input.ShardId === shardId)
    .length;
async function subscribed(shardId: string, count = 1): Promise<Subscription> {
  await until(() => subscriptionsOf(shardId).length >= count, `${shardId} subscribed ${count} times`);
  return subscriptionsOf(shardId)[count - 1] as Subscription;
}

function start(shards: Shard[] | undefined, options: Partial<ShardReaderOptions> = {}) {
  if (shards) kinesis.on(ListShardsCommand).resolves({ Shards: shards });
  const delivered: ShardRecord[][] = [];
  const logs: { message: string; fields: Record<string, unknown> | undefined }[] = [];
  const reader = new ShardReader({
    client: new KinesisClient({ region: 'us-east-1' }),
    streamArn: STREAM_ARN,
    consumerArn: CONSUMER_ARN,
    positions: new Map(),
    deliver: async (records) => {
      delivered.push(records);
    },
    log: (message, fields) => logs.push({ message, fields }),
    timings: TIMINGS,
    ...options,
  });
  const outcome: { settled: boolean; error?: unknown } = { settled: false };
  const done = reader.run().then(
    () => {
      outcome.settled = true;
    },
    (error: unknown) => {
      outcome.settled = true;
      outcome.error = error;
    },
  );
  running.push({ reader, done });
  const sequenceNumbersOf = (shardId: string) =>
    delivered.flat().flatMap((item) => (item.shardId === shardId ? [item.sequenceNumber] : []));
  return { reader, delivered, logs, outcome, done, sequenceNumbersOf };
}

/** A promise the test settles. */
function gate() {
  let open: () => void = () => {};
  let fail: (error: Error) => void = () => {};
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

describe('ShardReader', () => {
  it('lists the shards page after page, reads every one at once, and delivers their records decoded, in order', async () => {
    kinesis
      .on(ListShardsCommand)
      .resolvesOnce({ Shards: [shard('a')], NextToken: 'page-2' })
      .resolvesOnce({ Shards: [shard('b')] });
    const { delivered } = start(undefined, { positions: new Map([['b', '7']]) });

    const a = await subscribed('a');
    const b = await subscribed('b');
    expect(kinesis.commandCalls(ListShardsCommand).map((call) => call.args[0].input)).toEqual([
      { StreamARN: STREAM_ARN },
      { NextToken: 'page-2' },
    ]);
    expect(a.input).toEqual({
      ConsumerARN: CONSUMER_ARN,
      ShardId: 'a',
      StartingPosition: { Type: 'TRIM_HORIZON' },
    });
    expect(b.startingPosition).toEqual({ Type: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: '7' });

    a.push(event([record('1', 'one'), record('2', 'two €')], '2'), event([record('3', 'three')], '3'));
    b.push(event([record('8', 'eight')], '8'));
    await until(() => delivered.length === 3, 'three deliveries');

    const a1 = { shardId: 'a', partitionKey: 'AAPL' };
    expect(delivered.filter((records) => records[0]?.shardId === 'a')).toEqual([
      [
        { ...a1, sequenceNumber: '1', data: 'one' },
        { ...a1, sequenceNumber: '2', data: 'two €' },
      ],
      [{ ...a1, sequenceNumber: '3', data: 'three' }],
    ]);
    expect(delivered.find((records) => records[0]?.shardId === 'b')).toEqual([
      { shardId: 'b', partitionKey: 'AAPL', sequenceNumber: '8', data: 'eight' },
    ]);
  });

  it('lists the shards again after a backoff when the listing fails', async () => {
    kinesis
      .on(ListShardsCommand)
      .rejectsOnce(new LimitExceededException({ message: 'Rate exceeded', $metadata: {} }))
      .resolves({ Shards: [shard('a')] });
    const { logs } = start(undefined);
    await until(() => logs.length === 1, 'the failure logged');
    expect(logs[0]).toMatchObject({
      message: 'shards not listed',
      fields: { error: 'LimitExceededException' },
    });

    await advance(99);
    expect(kinesis.commandCalls(ListShardsCommand)).toHaveLength(1);
    await advance(1);
    await subscribed('a');
  });

  it('reads a shard no further while its records are being delivered, and counts that wait as no silence', async () => {
    const delivery = gate();
    const delivered: ShardRecord[][] = [];
    start([shard('a')], {
      deliver: async (records) => {
        delivered.push(records);
        await delivery.promise;
      },
    });
    const a = await subscribed('a');
    a.push(event([record('1')], '1'), event([record('2')], '2'));
    await until(() => delivered.length === 1, 'the first delivery');

    await advance(TIMINGS.silentAfterMs * 5);
    expect(delivered).toHaveLength(1);
    expect(a.signal?.aborted).toBe(false);

    delivery.open();
    await until(() => delivered.length === 2, 'the second delivery');
    expect(callsOf('a')).toBe(1);
  });

  it('renews an ended subscription after the last record delivered, or after the continuation of an event with none', async () => {
    const { sequenceNumbersOf } = start([shard('a')]);
    const first = await subscribed('a');
    first.push(event([record('10'), record('11')], '12'));
    first.end();

    const second = await subscribed('a', 2);
    expect(second.startingPosition).toEqual({ Type: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: '11' });
    second.push(event([], '20'));
    second.end();

    const third = await subscribed('a', 3);
    expect(third.startingPosition).toEqual({ Type: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: '20' });
    third.push(event([record('21')], '21'));
    await until(() => sequenceNumbersOf('a').length === 3, 'the third record');
    expect(sequenceNumbersOf('a')).toEqual(['10', '11', '21']);
  });

  it('subscribes again from the last record delivered after a stream error, with a backoff doubling up to the maximum', async () => {
    const { logs, sequenceNumbersOf } = start([shard('a')]);
    const first = await subscribed('a');
    first.push(event([record('5')], '5'));
    await until(() => sequenceNumbersOf('a').length === 1, 'the record');
    refuse(
      'a',
      new ResourceInUseException({ message: 'in use', $metadata: {} }),
      new LimitExceededException({ message: 'rate', $metadata: {} }),
      new InternalFailureException({ message: 'internal', $metadata: {} }),
    );
    first.fail(
      Object.assign(new Error('The pending stream has been canceled'), { code: 'ERR_HTTP2_STREAM_CANCEL' }),
    );
    await until(
      () => logs.some(({ message }) => message === 'shard subscription failed'),
      'the failure logged',
    );

    // Waits of 100, 200, 400 and 400 ms (ceilings 200, 400, 800, 800: retryMaxMs caps them).
    for (const [waitMs, calls] of [
      [100, 2],
      [200, 3],
      [400, 4],
      [400, 5],
    ] as const) {
      await advance(waitMs - 1);
      expect(callsOf('a')).toBe(calls - 1);
      await advance(1);
      expect(callsOf('a')).toBe(calls);
    }
    const renewed = await subscribed('a', 2);
    expect(renewed.startingPosition).toEqual({ Type: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: '5' });
    expect(
      kinesis
        .commandCalls(SubscribeToShardCommand)
        .map((call) => call.args[0].input.StartingPosition?.SequenceNumber),
    ).toEqual([undefined, '5', '5', '5', '5']);
    expect(
      logs
        .filter(({ message }) => message === 'shard subscription failed')
        .map(({ fields }) => fields?.error),
    ).toEqual(['Error', 'ResourceInUseException', 'LimitExceededException', 'InternalFailureException']);
    expect(logs.find(({ message }) => message === 'shard subscription failed')?.fields).toMatchObject({
      shardId: 'a',
      after: '5',
      waitMs: 100,
    });
  });

  it('takes an exception event in the stream for a failure, and waits less again once an event came', async () => {
    const { sequenceNumbersOf } = start([shard('a')]);
    const first = await subscribed('a');
    first.push({
      ResourceInUseException: new ResourceInUseException({ message: 'taken over', $metadata: {} }),
    } as SubscribeToShardEventStream);
    await advance(100);
    const second = await subscribed('a', 2);
    second.push(event([record('3')], '3'));
    await until(() => sequenceNumbersOf('a').length === 1, 'the record');
    second.end();
    await subscribed('a', 3);
    subscriptionsOf('a')[2]?.fail(new Error('Stream ended'));
    await advance(100);
    await subscribed('a', 4);
    expect(subscriptionsOf('a')[3]?.startingPosition).toEqual({
      Type: 'AFTER_SEQUENCE_NUMBER',
      SequenceNumber: '3',
    });
  });

  it('keeps subscribing at the longest wait, logged as errors, while the consumer is refused, and never crashes', async () => {
    const { logs, outcome } = start([shard('a')]);
    refuse(
      'a',
      new ResourceNotFoundException({ message: 'consumer not found', $metadata: {} }),
      new ResourceNotFoundException({ message: 'consumer not found', $metadata: {} }),
      new AccessDeniedException({ message: 'not authorized', $metadata: {} }),
    );
    await until(() => callsOf('a') === 1, 'the first call');
    for (const calls of [2, 3, 4]) {
      await advance(TIMINGS.retryMaxMs - 1);
      expect(callsOf('a')).toBe(calls - 1);
      await advance(1);
      expect(callsOf('a')).toBe(calls);
    }
    await subscribed('a');
    expect(outcome.settled).toBe(false);
    expect(
      logs.filter(({ message }) => message === 'shard subscription refused').map(({ fields }) => fields),
    ).toEqual([
      expect.objectContaining({ level: 'error', error: 'ResourceNotFoundException', waitMs: 800 }),
      expect.objectContaining({ level: 'error', error: 'ResourceNotFoundException', waitMs: 800 }),
      expect.objectContaining({ level: 'error', error: 'AccessDeniedException', waitMs: 800 }),
    ]);
  });

  it('counts a shard the stream no longer lists (expired) as ended, and reads its listed children', async () => {
    kinesis
      .on(ListShardsCommand)
      .resolvesOnce({ Shards: [shard('old')] })
      .resolves({ Shards: [shard('child', 'old')] });
    refuse('old', new ResourceNotFoundException({ message: 'shard not found', $metadata: {} }));
    const { logs } = start(undefined);
    const child = await subscribed('child');
    expect(child.startingPosition).toEqual({ Type: 'TRIM_HORIZON' });
    expect(callsOf('old')).toBe(1);
    expect(logs.map(({ message }) => message)).toContain(
      'shard no longer listed (expired): counted as ended',
    );
  });

  it('abandons a subscription that brings no event for silentAfterMs, and one whose call never answers', async () => {
    const { sequenceNumbersOf } = start([shard('a')]);
    const first = await subscribed('a');
    first.push(event([record('1')], '1'));
    await until(() => sequenceNumbersOf('a').length === 1, 'the record');

    await advance(TIMINGS.silentAfterMs - 1);
    expect(first.signal?.aborted).toBe(false);
    refuse('a', 'hang');
    await advance(1);
    expect(first.signal?.aborted).toBe(true);

    // Subscribed again after 100 ms; that call never answers, and is abandoned after silentAfterMs too.
    await advance(100);
    expect(callsOf('a')).toBe(2);
    const hung = kinesis.commandCalls(SubscribeToShardCommand)[1];
    expect(hung?.args[0].input.StartingPosition).toEqual({
      Type: 'AFTER_SEQUENCE_NUMBER',
      SequenceNumber: '1',
    });
    await advance(TIMINGS.silentAfterMs);
    expect(signalOfCall(1)?.aborted).toBe(true);

    await advance(200);
    const third = await subscribed('a', 2);
    expect(third.startingPosition).toEqual({ Type: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: '1' });
  });

  it('reads parents to their end before their children, a merge child once both parents ended', async () => {
    const lastOfP = gate();
    const delivered: ShardRecord[][] = [];
    start(
      [shard('p'), shard('c1', 'p'), shard('c2', 'p'), shard('x'), shard('y'), shard('orphan', 'expired')],
      {
        deliver: async (records) => {
          delivered.push(records);
          if (records.some(({ data }) => data === 'last of p')) await lastOfP.promise;
        },
      },
    );
    const p = await subscribed('p');
    const x = await subscribed('x');
    const y = await subscribed('y');
    await subscribed('orphan');
    expect(callsOf('c1') + callsOf('c2')).toBe(0);

    p.push(
      event([record('1')], '1'),
      lastEvent(
        [record('2', 'last of p')],
        [
          { ShardId: 'c1', ParentShards: ['p'] },
          { ShardId: 'c2', ParentShards: ['p'] },
        ],
      ),
    );
    await until(() => delivered.length === 2, "p's records delivered");
    await advance(0);
    expect(callsOf('c1') + callsOf('c2')).toBe(0);
    lastOfP.open();
    expect((await subscribed('c1')).startingPosition).toEqual({ Type: 'TRIM_HORIZON' });
    expect((await subscribed('c2')).startingPosition).toEqual({ Type: 'TRIM_HORIZON' });
    expect(callsOf('p')).toBe(1);

    const merged = [{ ShardId: 'm', ParentShards: ['x', 'y'] }];
    x.push(lastEvent([], merged));
    await until(() => callsOf('x') === 1 && x.signal?.aborted === true, "x's end taken");
    await advance(0);
    expect(callsOf('m')).toBe(0);
    y.push(event([record('9')], '9'), lastEvent([], merged));
    await subscribed('m');
    expect(callsOf('m')).toBe(1);
    expect(callsOf('x')).toBe(1);
    expect(callsOf('y')).toBe(1);
  });

  it('reads no listed parent again once a child of it has a position', async () => {
    start([shard('p'), shard('c1', 'p'), shard('c2', 'p')], { positions: new Map([['c1', '40']]) });
    expect((await subscribed('c1')).startingPosition).toEqual({
      Type: 'AFTER_SEQUENCE_NUMBER',
      SequenceNumber: '40',
    });
    expect((await subscribed('c2')).startingPosition).toEqual({ Type: 'TRIM_HORIZON' });
    expect(callsOf('p')).toBe(0);
  });

  it('finds the children of an ended shard in the listing when its last event names none', async () => {
    kinesis
      .on(ListShardsCommand)
      .resolvesOnce({ Shards: [shard('p')] })
      .resolves({ Shards: [shard('p'), shard('c', 'p')] });
    start(undefined);
    (await subscribed('p')).push(event([], undefined));
    await subscribed('c');
  });

  it('stops every subscription and wait at once, and resolves once the delivery in flight settled', async () => {
    const delivery = gate();
    const delivered: ShardRecord[][] = [];
    const { reader, outcome, done } = start([shard('a'), shard('b'), shard('c')], {
      deliver: async (records) => {
        delivered.push(records);
        await delivery.promise;
      },
    });
    refuse('b', new InternalFailureException({ message: 'internal', $metadata: {} }));
    const a = await subscribed('a');
    const c = await subscribed('c');
    await until(() => callsOf('b') === 1, 'b refused');
    a.push(event([record('1')], '1'));
    await until(() => delivered.length === 1, 'the delivery in flight');

    reader.stop();
    expect(a.signal?.aborted).toBe(true);
    expect(c.signal?.aborted).toBe(true);
    await advance(0);
    expect(outcome.settled).toBe(false);

    delivery.open();
    await done;
    expect(outcome).toEqual({ settled: true });
    await advance(TIMINGS.retryMaxMs * 2);
    expect(kinesis.commandCalls(SubscribeToShardCommand)).toHaveLength(3);
  });

  it('reports the largest MillisBehindLatest of the shards’ latest events', async () => {
    const { reader } = start([shard('a'), shard('b')]);
    expect(reader.behindMs()).toBe(0);
    const a = await subscribed('a');
    const b = await subscribed('b');
    a.push(event([], '1', { MillisBehindLatest: 100 }));
    b.push(event([record('2')], '2', { MillisBehindLatest: 2_000 }));
    await until(() => reader.behindMs() === 2_000, 'b behind');
    b.push(event([], '3', { MillisBehindLatest: 0 }));
    await until(() => reader.behindMs() === 100, 'b caught up');
  });

  it('stops reading every shard when a delivery fails, and run() rejects with its error', async () => {
    const failure = new Error('window host gone');
    const { outcome, done } = start([shard('a'), shard('b')], {
      deliver: async () => {
        throw failure;
      },
    });
    const a = await subscribed('a');
    const b = await subscribed('b');
    a.push(event([record('1')], '1'));
    await done;
    expect(outcome.error).toBe(failure);
    expect(b.signal?.aborted).toBe(true);
    expect(callsOf('a')).toBe(1);
  });
});

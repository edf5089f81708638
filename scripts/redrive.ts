/**
 * `npm run redrive -- [--apply] [--discard-poison] [--url U | --stack NAME [--region R]]`: reads the trades
 * dead-letter queue (docs/replay.md#dead-letters-and-redrive) and says what each message holds and what would
 * be done with it; with `--apply`, puts the redrivable trades back on the trades stream and deletes their
 * messages. Without `--stack`, the running local stack's queue.
 */
import { parseArgs } from 'node:util';
import { GetRecordsCommand, GetShardIteratorCommand, KinesisClient } from '@aws-sdk/client-kinesis';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { KinesisTradeSink } from '#adapters/kinesis/trade-sink';
import { STACK_OUTPUTS } from '#contracts/stack-outputs';
import type { FailedBatch } from '#domain/market-data/dead-letters';
import type { TradeSink } from '#domain/market-data/ports';
import { answerHelp, exitWith, UsageError } from './lib/cli.ts';
import {
  type BatchReader,
  decodeLetters,
  inlineRecords,
  type QueuedLetter,
  verdictOn,
} from './lib/dead-letter-redrive.ts';
import { LocalTradeSink } from './lib/local-trade-sink.ts';
import { DEFAULT_DATA_DIR } from './lib/project.ts';
import { runningLocalStack, stackOutputs } from './lib/target.ts';
import { LOCAL_SQS_PATH, LocalDeadLetterQueue } from './local/dead-letter-queue.ts';
import { LOCAL_AWS } from './local/dynamo.ts';

answerHelp(import.meta.url);

/** Long enough to redrive what was received before another reader could see it. */
const VISIBILITY_SECONDS = 300;

interface Queue {
  readonly sqs: SQSClient;
  readonly url: string;
  readonly sink: TradeSink;
  readonly readBatch: BatchReader;
  readonly description: string;
}

async function receiveAll(queue: Queue): Promise<QueuedLetter[]> {
  const letters: QueuedLetter[] = [];
  for (;;) {
    const { Messages = [] } = await queue.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queue.url,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: VISIBILITY_SECONDS,
      }),
    );
    if (Messages.length === 0) return letters;
    for (const { ReceiptHandle, Body } of Messages)
      letters.push({ receiptHandle: ReceiptHandle ?? '', body: Body ?? '' });
  }
}

/** Makes the messages visible again at once: a dry run, or the messages kept, leave the queue as it was. */
async function release(queue: Queue, receiptHandles: readonly string[]): Promise<void> {
  for (let start = 0; start < receiptHandles.length; start += 10) {
    await queue.sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl: queue.url,
        Entries: receiptHandles
          .slice(start, start + 10)
          .map((ReceiptHandle, index) => ({ Id: String(index), ReceiptHandle, VisibilityTimeout: 0 })),
      }),
    );
  }
}

/** The records of a failed batch, read from the stream by their sequence-number range. */
function kinesisBatchReader(kinesis: KinesisClient): BatchReader {
  return async (batch: FailedBatch) => {
    const inline = inlineRecords(batch);
    if (inline) return inline;
    const { shardId, startSequenceNumber, endSequenceNumber, streamArn } = batch.KinesisBatchInfo;
    let { ShardIterator } = await kinesis.send(
      new GetShardIteratorCommand({
        StreamARN: streamArn,
        ShardId: shardId,
        ShardIteratorType: 'AT_SEQUENCE_NUMBER',
        StartingSequenceNumber: startSequenceNumber,
      }),
    );
    const records: { data: string }[] = [];
    const end = BigInt(endSequenceNumber);
    while (ShardIterator) {
      const output = await kinesis.send(new GetRecordsCommand({ StreamARN: streamArn, ShardIterator }));
      for (const record of output.Records ?? []) {
        if (BigInt(record.SequenceNumber ?? '0') > end) return records;
        records.push({ data: Buffer.from(record.Data ?? []).toString('utf8') });
      }
      if ((output.Records ?? []).length === 0 && output.MillisBehindLatest === 0) return records;
      ShardIterator = output.NextShardIterator;
    }
    return records;
  };
}

async function localQueue(url: string | undefined, dataDir: string): Promise<Queue> {
  const restUrl = url ?? (await runningLocalStack(dataDir))?.restUrl;
  if (!restUrl)
    throw new UsageError('no running local stack found (start one with npm start, or pass --url or --stack)');
  const origin = new URL(restUrl).origin;
  return {
    sqs: new SQSClient({
      region: LOCAL_AWS.region,
      endpoint: `${origin}${LOCAL_SQS_PATH}`,
      credentials: { accessKeyId: LOCAL_AWS.accessKeyId, secretAccessKey: LOCAL_AWS.secretAccessKey },
    }),
    url: LocalDeadLetterQueue.urlAt(origin),
    sink: new LocalTradeSink(origin),
    readBatch: async (batch) => inlineRecords(batch) ?? [],
    description: `the local stack at ${origin}`,
  };
}

async function deployedQueue(stack: string, region?: string): Promise<Queue> {
  const output = await stackOutputs(stack, region);
  const kinesis = new KinesisClient({ region });
  return {
    sqs: new SQSClient({ region }),
    url: output(STACK_OUTPUTS.tradeDeadLetterQueueUrl),
    sink: new KinesisTradeSink(kinesis, output(STACK_OUTPUTS.tradeStreamName)),
    readBatch: kinesisBatchReader(kinesis),
    description: `stack ${stack}`,
  };
}

try {
  const { values } = parseArgs({
    options: {
      apply: { type: 'boolean', default: false },
      'discard-poison': { type: 'boolean', default: false },
      url: { type: 'string' },
      stack: { type: 'string' },
      region: { type: 'string' },
      'data-dir': { type: 'string', default: DEFAULT_DATA_DIR },
    },
  });
  const queue = values.stack
    ? await deployedQueue(values.stack, values.region)
    : await localQueue(values.url, values['data-dir']);
  const letters = decodeLetters(await receiveAll(queue));
  const lines: string[] = [`${letters.length} dead letters in ${queue.description}`];
  let redriven = 0;
  const untouched: string[] = [];
  for (const { letter, receiptHandle } of letters) {
    const verdict = await verdictOn(letter, {
      nowMs: Date.now(),
      readBatch: queue.readBatch,
      discardPoison: values['discard-poison'],
    });
    lines.push(`  ${verdict.action.padEnd(8)} ${verdict.why}`);
    if (!values.apply || verdict.action === 'keep') {
      untouched.push(receiptHandle);
      continue;
    }
    if (verdict.action === 'redrive') {
      await queue.sink.put(verdict.trades);
      redriven += verdict.trades.length;
    }
    await queue.sqs.send(new DeleteMessageCommand({ QueueUrl: queue.url, ReceiptHandle: receiptHandle }));
  }
  await release(queue, untouched);
  lines.push(
    values.apply
      ? `Redrove ${redriven} trades; ${untouched.length} messages kept in the queue.`
      : 'Nothing changed (a dry run): --apply redrives and deletes.',
  );
  process.stdout.write(`${lines.join('\n')}\n`);
} catch (error) {
  exitWith('redrive', error);
}

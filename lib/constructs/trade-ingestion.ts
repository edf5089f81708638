import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { Stream, StreamConsumer, StreamEncryption, StreamMode } from 'aws-cdk-lib/aws-kinesis';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import {
  KinesisConsumerEventSource,
  KinesisEventSource,
  type KinesisEventSourceProps,
  SqsDlq,
} from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { IngestDesign } from '#contracts/ingest-consumer';
import { INGEST_BATCH, TRADE_DEAD_LETTERS_ENV } from '#contracts/ingestion';
import { INGEST } from '#contracts/routes';
import type { TableBinding } from '#contracts/tables';
import { QUOTE_PUSH } from '#contracts/websocket';
import { addEventSourceFailures, type EventSourceFailures } from './event-source-failures.ts';
import { type BindingTarget, bindTable, ServiceFunction, type TableConstructs } from './service-function.ts';
import type { UsageDelivery } from './usage-delivery.ts';
import { grantConnectionManagement } from './websocket-api.ts';

/** How long the trades stream keeps records, and the trades dead-letter queue its messages. */
export const TRADE_STREAM_RETENTION = Duration.days(7);

/** The ingest function's iterator age (milliseconds) above which a shard is falling behind or stuck. */
export const ITERATOR_AGE_ALARM_THRESHOLD_MS = 60_000;

export interface TradeIngestionProps {
  /** The stack's tables; the ingest function binds the ones INGEST names. */
  readonly tables: TableConstructs;
  /**
   * Where the ingest posts the quotes of its commits (docs/adr/0024-quotes-posted-by-the-ingest.md): the
   * WebSocket stage and the usage rows' delivery stream. Absent in a stack without the WebSocket API.
   */
  readonly quotes?: { readonly stage: WebSocketStage; readonly usage: UsageDelivery };
  /**
   * Whether the ingest reads the stream through an enhanced fan-out consumer (the default) or polls it as a
   * standard consumer (`-c enhancedFanOut=false`, for LocalStack).
   */
  readonly enhancedFanOut: boolean;
  /**
   * Who reads the stream (`-c ingest=windows|lambda`, docs/adr/0026-long-running-ingest-consumer.md): the
   * windowed consumer's service (lib/constructs/ingest-consumer.ts), which subscribes through the enhanced
   * fan-out consumer and so needs it, or the ingest Lambda through its event source mapping. With `windows`
   * the mapping is not created.
   */
  readonly design: IngestDesign;
}

/**
 * Trade ingestion (docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-windowed-consumer): the Kinesis
 * stream producers put trades on, the ingest Lambda that folds each shard batch into ledgers (with the latest
 * prices) and bars, the dead-letter queue for batches it gives up on, and the alarms that show an operator a
 * stuck shard.
 *
 * Producers (the provider collector, the simulator, `npm run replay -- --stack`) use the trade's symbol as
 * the partition key: Kinesis keeps the records of one partition key on one shard, in order, so every trade
 * of a symbol reaches the ingest function in the order it was put.
 */
export class TradeIngestion extends Construct implements EventSourceFailures {
  readonly stream: Stream;
  /** The ingest's enhanced fan-out consumer of the stream; absent with `-c enhancedFanOut=false`. */
  readonly consumer?: StreamConsumer;
  readonly design: IngestDesign;
  /**
   * The ingest Lambda. With the windowed consumer it stays, with no event source mapping, so nothing invokes
   * it: going back to `-c ingest=lambda` only adds the mapping, and the dead-letter queue and its alarms, made
   * for it, keep their logical ids.
   */
  readonly ingestFunction: ServiceFunction;
  /** The tables an ingest binds: INGEST's, and QUOTE_PUSH's when it posts quotes. */
  readonly tableBindings: readonly TableBinding[];
  /** The event source mapping's on-failure destination: one message per batch Lambda stopped retrying. */
  readonly deadLetterQueue: Queue;
  readonly deadLetterAlarm: Alarm;
  readonly iteratorAgeAlarm: Alarm;

  private readonly tables: TableConstructs;
  private readonly quotes?: TradeIngestionProps['quotes'];

  constructor(scope: Construct, id: string, props: TradeIngestionProps) {
    super(scope, id);
    this.design = props.design;
    if (this.design === 'windows' && !props.enhancedFanOut) {
      throw new Error(
        'the windowed ingest consumer subscribes to the shards through the enhanced fan-out consumer: ' +
          'it needs enhancedFanOut',
      );
    }
    this.tables = props.tables;
    this.quotes = props.quotes;
    this.tableBindings = props.quotes ? [...INGEST.tables, ...QUOTE_PUSH.tables] : INGEST.tables;

    this.stream = new Stream(this, 'TradeStream', {
      // On-demand: capacity follows the market's open, close and quiet hours without shard management.
      streamMode: StreamMode.ON_DEMAND,
      // The AWS-managed key (aws/kinesis): encrypted at rest (cdk-nag KDS1, KDS3) with no key to own, and
      // producers and the ingest function need no KMS permissions.
      encryption: StreamEncryption.MANAGED,
      // Seven days (extended retention): as long as the dead-letter queue keeps a failed-batch message, so
      // every batch Lambda gave up on can still be read and redriven
      // (docs/replay.md#dead-letters-and-redrive), a long weekend included. The durable state is in the tables.
      retentionPeriod: TRADE_STREAM_RETENTION,
      // At most a week of trades the tables already hold; a retained on-demand stream would bill by the
      // hour with nothing left to read it.
      removalPolicy: RemovalPolicy.DESTROY,
    });

    this.ingestFunction = new ServiceFunction(this, 'Ingest', {
      entry: INGEST.handler,
      description: 'Kinesis trades: one shard batch folded into ledgers (latest prices within) and bars',
      tables: props.tables,
      bindings: this.tableBindings,
      // A full batch (up to 10,000 records of up to 100 trades each) reads and writes the ledgers and bars of
      // every symbol in it; more memory also means more CPU on Lambda. The timeout leaves room for DynamoDB
      // retries without letting a stuck invocation hold its shard for long.
      memorySize: 1024,
      timeout: Duration.seconds(INGEST.timeoutSeconds),
    });

    const failures = addEventSourceFailures(this, {
      consumer: this.ingestFunction,
      retention: TRADE_STREAM_RETENTION,
      mappings: 'the trades event source mapping',
      deadLetterAlarmDescription:
        'Trade ingestion set records apart: a Kinesis batch it gave up on (the message names the shard and ' +
        'sequence-number range), or a record refused whole (not a trade, or stamped in the future). Inspect ' +
        'and redrive within 7 days (docs/replay.md#dead-letters-and-redrive).',
      iteratorAgeThresholdMs: ITERATOR_AGE_ALARM_THRESHOLD_MS,
      iteratorAgeAlarmDescription:
        'The ingest function is reading trades more than a minute old for three minutes: a shard is stuck ' +
        'retrying a batch or ingestion cannot keep up, so quotes and candles are stale.',
    });
    this.deadLetterQueue = failures.deadLetterQueue;
    this.deadLetterAlarm = failures.deadLetterAlarm;
    this.iteratorAgeAlarm = failures.iteratorAgeAlarm;
    this.bindOutputs(this.ingestFunction);

    // An enhanced fan-out consumer: Kinesis pushes each shard's records to Lambda over HTTP/2 as they arrive
    // (about 70 ms on average, Kinesis Data Streams Developer Guide) instead of Lambda polling each shard once
    // a second (docs/adr/0024-quotes-posted-by-the-ingest.md).
    if (props.enhancedFanOut) {
      this.consumer = new StreamConsumer(this, 'IngestConsumer', {
        stream: this.stream,
        streamConsumerName: INGEST.streamConsumerName,
      });
    }
    // The windowed consumer's service reads the stream instead; two readers would make two writers of the
    // ledgers (docs/adr/0026-long-running-ingest-consumer.md).
    if (this.design === 'windows') return;
    const mapping: KinesisEventSourceProps = {
      // Up to 10,000 records (of up to 100 trades each), and no batching window: Lambda invokes as soon as
      // records arrive, so a batch holds what arrived while the one before it ran, and a quote follows its
      // trade by about an invocation, not a second.
      batchSize: INGEST_BATCH.size,
      maxBatchingWindow: Duration.seconds(INGEST_BATCH.windowSeconds),
      // TRIM_HORIZON, not LATEST: a mapping created (or replaced) after producers started, e.g. a replay
      // put right after `cdk deploy` while the mapping is still being enabled, would skip those records
      // with LATEST. Reading the stream from its oldest record only costs re-delivery, which the ingest
      // handler skips by the ledger's watermark (duplicates never double-count volume,
      // docs/architecture.md#ingestion-a-kinesis-stream-of-trades-one-windowed-consumer).
      startingPosition: StartingPosition.TRIM_HORIZON,
      // The handler skips undecodable records itself and reports a symbol whose write failed as a batch
      // item failure (its first sequence number): Lambda retries from the lowest one reported. A thrown
      // error (a timeout, say) splits the batch in two instead, so one bad slice cannot hold the whole
      // batch; splitting does not use up retries.
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      // Bounded, so a batch that cannot succeed stops blocking its shard (the default is to retry until
      // the record expires): after 5 retries or once a record is an hour old, Lambda sends the batch's
      // shard and sequence-number range to the dead-letter queue and moves on. An hour is well inside the
      // 7-day retention, so the records it names can still be read and redriven.
      retryAttempts: 5,
      maxRecordAge: Duration.hours(1),
      // One batch per shard at a time: each symbol's trades are applied strictly in order and a retry
      // never races a newer batch of the same shard. Lambda keeps per-partition-key order at higher
      // factors too, so raising it is the throughput lever if one shard's batches cannot keep up.
      parallelizationFactor: 1,
      onFailure: new SqsDlq(this.deadLetterQueue),
    };
    this.ingestFunction.lambda.addEventSource(
      this.consumer
        ? new KinesisConsumerEventSource(this.consumer, mapping)
        : new KinesisEventSource(this.stream, mapping),
    );
  }

  /**
   * Gives another ingest (the windowed consumer's service, lib/constructs/ingest-consumer.ts) what the ingest
   * Lambda is given, the same way: its tables (bindTable), the dead-letter queue, and, with the WebSocket
   * API, the stage's connections and the usage stream.
   */
  bindIngest(target: BindingTarget): void {
    for (const binding of this.tableBindings) bindTable(target, this.tables, binding);
    this.bindOutputs(target);
  }

  /** What an ingest writes besides its tables: refused records, and the quotes it posts with their usage. */
  private bindOutputs(target: BindingTarget): void {
    // An ingest sets refused records apart in the dead-letter queue, whole (SendMessageBatch, whose
    // permission is sqs:SendMessage: functions/adapters/sqs/dead-letter-sink.ts).
    target.addEnvironment(TRADE_DEAD_LETTERS_ENV, this.deadLetterQueue.queueUrl);
    this.deadLetterQueue.grant(target, 'sqs:SendMessage');
    if (this.quotes) {
      grantConnectionManagement(target, this.quotes.stage);
      this.quotes.usage.bindProducer(target);
    }
  }
}

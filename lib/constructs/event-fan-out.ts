import { Duration, Validations } from 'aws-cdk-lib';
import type { WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { TABLES, type TableId } from '#contracts/tables';
import { FAN_OUT } from '#contracts/websocket';
import { addEventSourceFailures, type EventSourceFailures } from './event-source-failures.ts';
import { ServiceFunction, type TableConstructs } from './service-function.ts';
import type { UsageDelivery } from './usage-delivery.ts';
import { grantConnectionManagement } from './websocket-api.ts';

/**
 * The fan-out function's iterator age (milliseconds) above which pushes are no longer live: a shard is
 * stuck retrying a batch or the fan-out cannot keep up with the writes.
 */
export const FAN_OUT_ITERATOR_AGE_ALARM_THRESHOLD_MS = 30_000;

export type FanOutSource = (typeof FAN_OUT.sources)[number];

export interface EventFanOutProps {
  /** The stack's tables: the sources' streams feed the function, FAN_OUT.tables are bound to it. */
  readonly tables: TableConstructs;
  /** The WebSocket stage whose connections the function posts to. */
  readonly stage: WebSocketStage;
  /** Where the function sends one usage row per message it pushes. */
  readonly usage: UsageDelivery;
}

/**
 * The fan-out (docs/architecture.md#fan-out-dynamodb-streams-to-the-connections): one function reading the
 * streams of the FAN_OUT source tables and posting each change to the connections subscribed to its channel
 * and symbol, the dead-letter queue for the batches it gives up on, and the alarms that show an operator
 * stale or dropped pushes.
 */
export class EventFanOut extends Construct implements EventSourceFailures {
  readonly fanOutFunction: ServiceFunction;
  /** The event source mappings' on-failure destination: one message per batch Lambda stopped retrying. */
  readonly deadLetterQueue: Queue;
  readonly deadLetterAlarm: Alarm;
  readonly iteratorAgeAlarm: Alarm;

  constructor(scope: Construct, id: string, props: EventFanOutProps) {
    super(scope, id);

    this.fanOutFunction = new ServiceFunction(this, 'FanOut', {
      entry: FAN_OUT.handler,
      description: 'DynamoDB Streams of states, alerts and breaks pushed to subscribed connections',
      tables: props.tables,
      bindings: FAN_OUT.tables,
      // The work is I/O: up to 100 records, a Query per topic and POST_CONCURRENCY PostToConnection
      // calls in flight. 512 MB (the service default) gives ARM enough CPU for the JSON and TLS; 30 s covers
      // a burst to many subscribers with SDK retries, yet lets a stuck batch go back to its shard quickly.
      memorySize: 512,
      timeout: Duration.seconds(30),
    });
    grantConnectionManagement(this.fanOutFunction, props.stage);
    props.usage.bindProducer(this.fanOutFunction);
    // ListStreams (added by every DynamoEventSource) has no resource-level permissions.
    Validations.of(this.fanOutFunction).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'Besides X-Ray (xray:PutTraceSegments, xray:PutTelemetryRecords), the event source mappings need ' +
        'dynamodb:ListStreams, which supports no resource-level permissions; stream reads are scoped to the ' +
        'three source streams.',
    });

    const failures = addEventSourceFailures(this, {
      consumer: this.fanOutFunction,
      mappings: 'the fan-out event source mappings',
      deadLetterAlarmDescription:
        'The fan-out gave up on at least one DynamoDB Streams batch: subscribed partners missed those pushes ' +
        '(they can read the current values over REST). Each message names the stream and sequence range.',
      iteratorAgeThresholdMs: FAN_OUT_ITERATOR_AGE_ALARM_THRESHOLD_MS,
      iteratorAgeAlarmDescription:
        'The fan-out is reading changes more than 30 seconds old for three minutes: partners receive stale ' +
        'pushes, and past the maximum record age they are dropped to the dead-letter queue.',
      // DynamoDB Streams keep records 24 hours: a failed-batch message is worth no more than that. The pushes it
      // names are not lost data: partners catch up over REST (docs/websocket.md#delivery).
      retention: Duration.hours(24),
    });
    this.deadLetterQueue = failures.deadLetterQueue;
    this.deadLetterAlarm = failures.deadLetterAlarm;
    this.iteratorAgeAlarm = failures.iteratorAgeAlarm;

    const bound = new Set<TableId>(FAN_OUT.tables.map(({ table }) => table));
    for (const source of FAN_OUT.sources) {
      const table = props.tables[source];
      // The handler tells a record's source table by its physical name (in the record's stream ARN), so it
      // needs every source's name; reading the streams needs no grant on the table itself, so a source the
      // contract does not bind gets the name only.
      if (!bound.has(source)) {
        this.fanOutFunction.lambda.addEnvironment(TABLES[source].envVar, table.tableName);
      }
      this.fanOutFunction.lambda.addEventSource(
        new DynamoEventSource(table, {
          // LATEST, not TRIM_HORIZON: pushes are live. A mapping created (or replaced) later must not replay
          // up to 24 hours of old quotes and alerts to partners; what they missed they read over REST.
          startingPosition: StartingPosition.LATEST,
          batchSize: FAN_OUT.batch.size,
          ...(FAN_OUT.batch.windowSeconds > 0
            ? { maxBatchingWindow: Duration.seconds(FAN_OUT.batch.windowSeconds) }
            : {}),
          // The handler reports a record whose pushes failed (and every later record of its symbols) as a
          // batch item failure; a thrown error splits the batch instead, so one bad record cannot hold the
          // rest. Usage rows carry the stream event id, so a retried record is never billed twice.
          reportBatchItemFailures: true,
          bisectBatchOnError: true,
          // Bounded, so a batch that cannot succeed stops blocking its shard: after the retries, or once a
          // record is older than a push is worth, Lambda sends the batch's range to the dead-letter queue.
          retryAttempts: FAN_OUT.batch.retryAttempts,
          maxRecordAge: Duration.seconds(FAN_OUT.batch.maxRecordAgeSeconds),
          // DynamoDB Streams keep each item's records in order at any factor.
          parallelizationFactor: FAN_OUT.batch.parallelizationFactor,
          onFailure: new SqsDlq(this.deadLetterQueue),
        }),
      );
    }
  }
}

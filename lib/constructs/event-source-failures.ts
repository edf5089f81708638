import { Duration, Validations } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ServiceFunction } from './service-function.ts';

export interface EventSourceFailuresProps {
  /** The function the event source mappings invoke: its IteratorAge is alarmed on. */
  readonly consumer: ServiceFunction;
  /**
   * The mappings whose failed batches the queue receives, as the cdk-nag acknowledgement names them, e.g.
   * 'the trades event source mapping'.
   */
  readonly mappings: string;
  /** What the operator reads when a batch was given up on: what was lost and how to get it back. */
  readonly deadLetterAlarmDescription: string;
  /** The iterator age (milliseconds) above which, for three minutes, the consumer is too far behind. */
  readonly iteratorAgeThresholdMs: number;
  /** What the operator reads when the consumer falls behind: what goes stale for partners. */
  readonly iteratorAgeAlarmDescription: string;
  /**
   * How long the queue keeps a message: no longer than the stream keeps the records a failed-batch message
   * names, so every message left in the queue can still be redriven (docs/replay.md#dead-letters-and-redrive).
   */
  readonly retention: Duration;
}

/** A stream consumer's on-failure destination and the alarms that show an operator stuck or dropped batches. */
export interface EventSourceFailures {
  /** The event source mappings' on-failure destination: one message per batch Lambda stopped retrying. */
  readonly deadLetterQueue: Queue;
  readonly deadLetterAlarm: Alarm;
  readonly iteratorAgeAlarm: Alarm;
}

/**
 * Adds what a function reading a stream through event source mappings (Kinesis, DynamoDB Streams) needs for
 * the batches it fails on: the dead-letter queue that the mappings' `onFailure` (an `SqsDlq`) names, an alarm
 * as soon as that queue holds a message, and an alarm when the function reads records too old.
 *
 * The queue and the alarms are created in `scope` (the consumer's construct) as DeadLetterQueue,
 * DeadLetterAlarm and IteratorAgeAlarm, not in a child construct of their own: their logical ids stay those
 * of the consumer's resources, so a deployed queue (and the dead letters it holds) is never replaced.
 *
 * Alarms only: no SNS topic or action yet. They show the state on the CloudWatch console, and an operator
 * (or a later change) attaches a notification action without touching the consumer.
 */
export function addEventSourceFailures(
  scope: Construct,
  props: EventSourceFailuresProps,
): EventSourceFailures {
  const deadLetterQueue = new Queue(scope, 'DeadLetterQueue', {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: props.retention,
  });
  Validations.of(deadLetterQueue).acknowledge({
    id: 'AwsSolutions-SQS3',
    reason:
      `This queue IS a dead-letter queue: the on-failure destination of ${props.mappings} ` +
      '(cdk-nag only recognizes queues named in a redrive policy or a function DeadLetterConfig). Nothing ' +
      'consumes it automatically, so it needs no dead-letter queue of its own.',
  });

  const deadLetterAlarm = new Alarm(scope, 'DeadLetterAlarm', {
    alarmDescription: props.deadLetterAlarmDescription,
    metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
      statistic: Stats.MAXIMUM,
      period: Duration.minutes(1),
    }),
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    threshold: 0,
    evaluationPeriods: 1,
    // SQS stops sending metrics for a queue that stays empty: no data means no dead letters.
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });

  const iteratorAgeAlarm = new Alarm(scope, 'IteratorAgeAlarm', {
    alarmDescription: props.iteratorAgeAlarmDescription,
    metric: props.consumer.lambda.metric('IteratorAge', {
      statistic: Stats.MAXIMUM,
      period: Duration.minutes(1),
    }),
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    threshold: props.iteratorAgeThresholdMs,
    evaluationPeriods: 3,
    // Lambda reports IteratorAge only when it delivers a batch: no data means an idle stream.
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });

  return { deadLetterQueue, deadLetterAlarm, iteratorAgeAlarm };
}

import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { EventSourceFailures } from '#lib/constructs/event-source-failures';
import type { ServiceFunction } from '#lib/constructs/service-function';
import { actionsOnResource } from './grants.ts';
import { eventSourceMappingsOf, logicalIdOf, templateOfResource } from './template.ts';

export interface StreamConsumerUnderTest {
  /** The construct's name, prefixing the describe titles (e.g. 'EventFanOut dead-letter queue'). */
  readonly name: string;
  readonly template: Template;
  /** The function the event source mappings invoke. */
  readonly consumer: ServiceFunction;
  /** The construct's dead-letter queue and alarms (addEventSourceFailures). */
  readonly failures: EventSourceFailures;
  /** How long the queue keeps a message: as long as the stream keeps the records it names (hours). */
  readonly retentionHours: number;
  readonly iteratorAge: {
    /** The iterator-age alarm test's title: how old a record is too old for this consumer. */
    readonly title: string;
    /** The construct's exported threshold (milliseconds). */
    readonly thresholdMs: number;
    /** The threshold the title promises. */
    readonly expectedMs: number;
  };
}

/**
 * The tests every stream consumer shares (addEventSourceFailures): the dead-letter queue its event source
 * mappings send the batches they give up on to, and the dead-letter and iterator-age alarms.
 */
export function describeEventSourceFailures(subject: StreamConsumerUnderTest): void {
  const { name, template, consumer, failures, iteratorAge, retentionHours } = subject;
  const queueId = logicalIdOf(failures.deadLetterQueue);
  const functionId = logicalIdOf(consumer.lambda);
  const mappings = () => eventSourceMappingsOf(template, functionId).map(([, mapping]) => mapping.Properties);

  describe(`${name} dead-letter queue`, () => {
    it(`is encrypted with SQS-managed keys and keeps messages ${retentionHours} hours, as the stream its records`, () => {
      templateOfResource(template, queueId).hasResourceProperties('AWS::SQS::Queue', {
        SqsManagedSseEnabled: true,
        MessageRetentionPeriod: retentionHours * 3600,
      });
    });

    it('refuses requests that do not use TLS', () => {
      template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: queueId }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            {
              Effect: 'Deny',
              Principal: { AWS: '*' },
              Action: 'sqs:*',
              Resource: { 'Fn::GetAtt': [queueId, 'Arn'] },
              Condition: { Bool: { 'aws:SecureTransport': 'false' } },
            },
          ]),
        },
      });
    });

    it('receives the batches each event source mapping of the function gives up on', () => {
      expect(mappings().length).toBeGreaterThan(0);
      for (const mapping of mappings()) {
        expect(mapping.DestinationConfig).toEqual({
          OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } },
        });
      }
    });

    it('may be sent to by the function, which may not receive, delete or purge', () => {
      const actions = actionsOnResource(template, consumer, queueId);
      expect(actions).toContain('sqs:SendMessage');
      expect(actions.filter((action) => /^sqs:(Receive|Delete|Purge|ChangeMessage)/.test(action))).toEqual(
        [],
      );
    });
  });

  describe(`${name} alarms`, () => {
    it('alarms as soon as the dead-letter queue holds a message', () => {
      templateOfResource(template, logicalIdOf(failures.deadLetterAlarm)).hasResourceProperties(
        'AWS::CloudWatch::Alarm',
        {
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queueId, 'QueueName'] } }],
          Statistic: 'Maximum',
          Period: 60,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: 0,
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        },
      );
    });

    it(iteratorAge.title, () => {
      expect(iteratorAge.thresholdMs).toBe(iteratorAge.expectedMs);
      // It fires before the mappings drop records for their age.
      for (const mapping of mappings()) {
        expect(iteratorAge.thresholdMs).toBeLessThan(mapping.MaximumRecordAgeInSeconds * 1000);
      }
      templateOfResource(template, logicalIdOf(failures.iteratorAgeAlarm)).hasResourceProperties(
        'AWS::CloudWatch::Alarm',
        {
          Namespace: 'AWS/Lambda',
          MetricName: 'IteratorAge',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId } }],
          Statistic: 'Maximum',
          Period: 60,
          ComparisonOperator: 'GreaterThanThreshold',
          Threshold: iteratorAge.thresholdMs,
          EvaluationPeriods: 3,
          TreatMissingData: 'notBreaching',
        },
      );
    });

    it('pages the alarm topic (docs/operations.md#alarms)', () => {
      const topics = Object.keys(template.findResources('AWS::SNS::Topic'));
      expect(topics).toHaveLength(1);
      for (const alarm of [failures.deadLetterAlarm, failures.iteratorAgeAlarm]) {
        templateOfResource(template, logicalIdOf(alarm)).hasResourceProperties('AWS::CloudWatch::Alarm', {
          AlarmActions: [{ Ref: topics[0] }],
        });
      }
    });
  });
}

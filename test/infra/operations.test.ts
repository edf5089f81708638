import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { METRICS, METRICS_NAMESPACE, METRICS_NAMESPACE_ENV } from '#contracts/metrics';
import { ALARM_THRESHOLDS, THROTTLED_METRIC } from '#lib/constructs/operations';
import { ALARM_EMAIL_CONTEXT } from '#lib/market-data-stack';
import { synthServiceStack } from './support/service-stack.ts';
import { logicalIdOf, resourceOf, resourcesOfType } from './support/template.ts';

const { stack, template } = synthServiceStack();
const topicId = logicalIdOf(stack.operations.topic);

describe('Operations: instrumented functions', () => {
  const functions = resourcesOfType(template, 'AWS::Lambda::Function').filter(
    ([, resource]) => resource.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME !== undefined,
  );

  it('covers every service function', () => {
    expect(functions.length).toBeGreaterThanOrEqual(17);
  });

  it.each(functions.map(([id]) => [id]))('%s has the metrics namespace and active tracing', (id) => {
    const { Properties } = resourceOf(template, id);
    expect(Properties.Environment.Variables[METRICS_NAMESPACE_ENV]).toBe(METRICS_NAMESPACE);
    expect(Properties.TracingConfig).toEqual({ Mode: 'Active' });
  });
});

describe('Operations: alarms that page', () => {
  const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm');

  it('sends every alarm of the stack to the alarm topic', () => {
    expect(alarms.length).toBeGreaterThan(40);
    for (const [, alarm] of alarms) expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
  });

  it('encrypts the topic with a key CloudWatch may use, and refuses plain HTTP', () => {
    const key = resourcesOfType(template, 'AWS::KMS::Key')[0]?.[1];
    expect(JSON.stringify(key?.Properties.KeyPolicy)).toContain('cloudwatch.amazonaws.com');
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('subscribes no one by default, and the address given in the context', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    const withEmail = synthServiceStack({ [ALARM_EMAIL_CONTEXT]: 'ops@example.com' }).template;
    withEmail.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
  });

  it('has an errors and a throttles alarm per function, the authorizer’s not counting its 401s', () => {
    const authorizer = logicalIdOf(stack.restApi.authorizerFunction.lambda);
    const [, authorizerErrors] = alarms.find(([, alarm]) =>
      JSON.stringify(alarm.Properties.Metrics ?? []).includes(authorizer),
    ) ?? ['', { Properties: { Metrics: [] } }];
    expect(authorizerErrors.Properties.Metrics[0].Expression).toBe('errors - FILL(unauthorized, 0)');
    const unauthorized = (
      authorizerErrors.Properties.Metrics as {
        Id: string;
        MetricStat?: { Metric: { Dimensions: { Name: string; Value: string }[] } };
      }[]
    ).find(({ Id }) => Id === 'unauthorized');
    expect(unauthorized?.MetricStat?.Metric.Dimensions).toContainEqual({ Name: 'Outcome', Value: '401' });
  });

  it('pages when the market is open and no trade was applied for five minutes (feed silence)', () => {
    const alarm = resourceOf(template, logicalIdOf(stack.operations.feedSilenceAlarm)).Properties;
    expect(alarm).toMatchObject({
      Threshold: 1,
      EvaluationPeriods: ALARM_THRESHOLDS.feedSilenceMinutes,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    const [expression, ...inputs] = alarm.Metrics as {
      Id: string;
      Expression?: string;
      MetricStat?: { Metric: { MetricName: string; Namespace: string }; Stat: string };
    }[];
    expect(expression?.Expression).toBe('IF(open > 0 AND FILL(applied, 0) <= 0, 1, 0)');
    expect(
      inputs.map(({ Id, MetricStat }) => [
        Id,
        MetricStat?.Metric.Namespace,
        MetricStat?.Metric.MetricName,
        MetricStat?.Stat,
      ]),
    ).toEqual([
      ['open', METRICS_NAMESPACE, METRICS.marketOpen.name, 'Maximum'],
      ['applied', METRICS_NAMESPACE, METRICS.tradesApplied.name, 'Sum'],
    ]);
  });

  it.each([
    ['ingest lag', METRICS.ingestLag.name],
    ['fan-out failures', METRICS.pushesFailed.name],
  ])('has an alarm on %s', (_name, metricName) => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: metricName,
      Namespace: METRICS_NAMESPACE,
    });
  });

  it('has a REST 5xx alarm and a throttles alarm per table', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: '5XXError',
      Namespace: 'AWS/ApiGateway',
    });
    const tableAlarms = alarms.filter(
      ([id]) => /ThrottlesAlarm/.test(id) && /Operations[a-zA-Z]+ThrottlesAlarm/.test(id),
    );
    expect(tableAlarms.length).toBeGreaterThanOrEqual(10);
  });
});

describe('Operations: dashboard and throttled requests', () => {
  it('has one dashboard with the REST, ingest, analytics, WebSocket, DynamoDB and Lambda rows', () => {
    const dashboards = resourcesOfType(template, 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    const body = JSON.stringify(dashboards[0]?.[1].Properties.DashboardBody);
    for (const row of ['## REST', '## Ingest', '## Analytics', '## WebSocket', '## DynamoDB', '## Lambda']) {
      expect(body).toContain(row);
    }
  });

  it('counts 429 answers of the REST stage from its access log', () => {
    template.hasResourceProperties('AWS::Logs::MetricFilter', {
      FilterPattern: '{ $.status = 429 }',
      LogGroupName: { Ref: logicalIdOf(stack.restApi.accessLogs) },
      MetricTransformations: [
        Match.objectLike({ MetricName: THROTTLED_METRIC, MetricNamespace: METRICS_NAMESPACE }),
      ],
    });
  });
});

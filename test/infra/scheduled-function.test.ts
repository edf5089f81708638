import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { USAGE_PLAN_ID_ENV } from '#contracts/throttling';
import { HEARTBEAT } from '#contracts/websocket';
import { nagFindingsOf } from './support/cdk-nag.ts';
import { synthServiceStack } from './support/service-stack.ts';
import { expectInvokePermission, logicalIdOf, resourceOf, templateOfResource } from './support/template.ts';

const { stack, template } = synthServiceStack();

/** The stack's ScheduledFunctions, through the properties the stack's users read. */
const SCHEDULED = [
  {
    name: 'Heartbeat',
    construct: stack.heartbeat,
    fn: stack.heartbeat.heartbeatFunction,
    runs: `runs the heartbeat function every ${HEARTBEAT.intervalMinutes} minutes, without retries`,
    scheduleExpression: 'rate(4 minutes)',
  },
  {
    name: 'ClockTick',
    construct: stack.clockTick,
    fn: stack.clockTick.tickFunction,
    runs: 'runs the clock-tick function every minute, without retries (the next tick comes a minute later)',
    scheduleExpression: 'rate(1 minute)',
  },
];

for (const { name, construct, fn, runs, scheduleExpression } of SCHEDULED) {
  describe(name, () => {
    const functionId = logicalIdOf(fn.lambda);

    it(runs, () => {
      templateOfResource(template, logicalIdOf(construct.rule)).hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: scheduleExpression,
        State: 'ENABLED',
        Targets: [
          Match.objectLike({
            Arn: { 'Fn::GetAtt': [functionId, 'Arn'] },
            RetryPolicy: { MaximumRetryAttempts: 0 },
          }),
        ],
      });
    });

    it('lets EventBridge invoke the function', () => {
      expectInvokePermission(template, functionId, 'events.amazonaws.com');
    });

    it('has no unacknowledged AwsSolutions finding', () => {
      expect(nagFindingsOf(construct)).toEqual([]);
    });
  });
}

describe('Heartbeat interval', () => {
  it('leaves a connection active within the 10-minute idle timeout when one beat is missed', () => {
    expect(HEARTBEAT.intervalMinutes * 2).toBeLessThan(10);
  });
});

describe('ClockTick and the per-key REST limits', () => {
  const fn = resourceOf(template, logicalIdOf(stack.clockTick.tickFunction.lambda));
  const usagePlanId = logicalIdOf(stack.restApi.usagePlan);

  it('names the usage plan whose throttle it sets', () => {
    expect(fn.Properties.Environment.Variables[USAGE_PLAN_ID_ENV]).toEqual({ Ref: usagePlanId });
  });

  it('may read and update that usage plan, and no other API Gateway resource', () => {
    const statements = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) =>
        policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[],
    );
    const apiGateway = statements.filter((statement) =>
      [statement.Action].flat().some((action) => action.startsWith('apigateway:')),
    );
    expect(apiGateway).toHaveLength(1);
    expect([apiGateway[0]?.Action].flat().sort()).toEqual(['apigateway:GET', 'apigateway:PATCH']);
    expect(JSON.stringify(apiGateway[0]?.Resource)).toContain(`/usageplans/`);
    expect(JSON.stringify(apiGateway[0]?.Resource)).toContain(usagePlanId);
  });
});

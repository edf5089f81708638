import { Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { HEARTBEAT } from '#contracts/websocket';
import { synthServiceStack } from './support/service-stack.ts';
import { logicalIdOf } from './support/template.ts';

const { stack, template } = synthServiceStack();
const heartbeatFunction = logicalIdOf(stack.heartbeat.heartbeatFunction.lambda);

describe('Heartbeat', () => {
  it(`runs the heartbeat function every ${HEARTBEAT.intervalMinutes} minutes, without retries`, () => {
    expect(HEARTBEAT.intervalMinutes * 2).toBeLessThan(10); // one missed beat stays within the idle timeout
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(4 minutes)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [heartbeatFunction, 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0 },
        }),
      ],
    });
  });

  it('lets EventBridge invoke the function', () => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [heartbeatFunction, 'Arn'] },
    });
  });

  it('has no unacknowledged AwsSolutions finding', () => {
    const report = new AwsSolutionsChecks(stack.node.root, { verbose: true }).validateScope(stack.heartbeat);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});

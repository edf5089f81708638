import { Match } from 'aws-cdk-lib/assertions';
import { describe, it } from 'vitest';
import { synthServiceStack } from './support/service-stack.ts';
import { logicalIdOf } from './support/template.ts';

const { stack, template } = synthServiceStack();
const tickFunction = logicalIdOf(stack.clockTick.tickFunction.lambda);

describe('ClockTick', () => {
  it('runs the clock-tick function every minute, without retries (the next tick comes a minute later)', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      State: 'ENABLED',
      Targets: [
        Match.objectLike({
          Arn: { 'Fn::GetAtt': [tickFunction, 'Arn'] },
          RetryPolicy: { MaximumRetryAttempts: 0 },
        }),
      ],
    });
  });

  it('lets EventBridge invoke the function', () => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [tickFunction, 'Arn'] },
    });
  });
});

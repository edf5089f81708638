import type { Duration } from 'aws-cdk-lib';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { ServiceFunction, type ServiceFunctionProps } from './service-function.ts';

export interface ScheduledFunctionProps extends ServiceFunctionProps {
  /** The service function's construct id (its logical ids start with it). */
  readonly functionId: string;
  /** How often EventBridge runs the function. */
  readonly rate: Duration;
}

/**
 * A service function that an EventBridge schedule (the `Schedule` rule) runs at a fixed rate.
 *
 * No retries: a run retried late would overlap the next one, and the next run comes at the next rate anyway.
 */
export class ScheduledFunction extends Construct {
  readonly function: ServiceFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, { functionId, rate, ...functionProps }: ScheduledFunctionProps) {
    super(scope, id);
    this.function = new ServiceFunction(this, functionId, functionProps);
    this.rule = new Rule(this, 'Schedule', {
      schedule: Schedule.rate(rate),
      targets: [new LambdaFunction(this.function.lambda, { retryAttempts: 0 })],
    });
  }
}

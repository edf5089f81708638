import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type { IUsagePlan } from 'aws-cdk-lib/aws-apigateway';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { CLOCK_TICK } from '#contracts/routes';
import { USAGE_PLAN_ID_ENV } from '#contracts/throttling';
import { ScheduledFunction } from './scheduled-function.ts';
import type { ServiceFunction, TableConstructs } from './service-function.ts';

/** How often the states are derived again without trades (a period's end is seen within this). */
export const CLOCK_TICK_RATE = Duration.minutes(1);

export interface ClockTickProps {
  readonly tables: TableConstructs;
  /** The usage plan whose per-key throttle the tick sets every minute. */
  readonly usagePlan: IUsagePlan;
}

/**
 * The clock tick: an EventBridge schedule that runs the clock-tick function every minute, so a
 * period that ended without a trade rolls over (CC becomes C1) in the stored states and setup rows. It
 * runs around the clock: a weekly, monthly or yearly period also ends between sessions. It also sets the usage
 * plan's per-key throttle to the rule's figures for the minute (functions/domain/access/throughput.ts).
 */
export class ClockTick extends ScheduledFunction {
  constructor(scope: Construct, id: string, props: ClockTickProps) {
    super(scope, id, {
      functionId: 'ClockTick',
      entry: CLOCK_TICK.handler,
      description: 'Every minute: derive every symbol state again so periods roll over without trades',
      tables: props.tables,
      bindings: CLOCK_TICK.tables,
      memorySize: 1024,
      timeout: Duration.seconds(CLOCK_TICK.timeoutSeconds),
      rate: CLOCK_TICK_RATE,
    });
    this.function.lambda.addEnvironment(USAGE_PLAN_ID_ENV, props.usagePlan.usagePlanId);
    this.function.lambda.addToRolePolicy(
      new PolicyStatement({
        actions: ['apigateway:GET', 'apigateway:PATCH'],
        resources: [
          Stack.of(this).formatArn({
            service: 'apigateway',
            account: '',
            resource: '/usageplans',
            resourceName: props.usagePlan.usagePlanId,
            arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
          }),
        ],
      }),
    );
  }

  get tickFunction(): ServiceFunction {
    return this.function;
  }
}

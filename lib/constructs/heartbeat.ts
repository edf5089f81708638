import { Duration } from 'aws-cdk-lib';
import type { WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { HEARTBEAT } from '#contracts/websocket';
import { ServiceFunction, type TableConstructs } from './service-function.ts';
import { grantConnectionManagement } from './websocket-api.ts';

export interface HeartbeatProps {
  readonly tables: TableConstructs;
  /** The WebSocket stage whose connections receive the heartbeat. */
  readonly stage: WebSocketStage;
}

/**
 * The heartbeat: an EventBridge schedule that runs the heartbeat function every HEARTBEAT.intervalMinutes,
 * posting `{"op":"heartbeat"}` to every connection so API Gateway's 10-minute idle timeout never drops a
 * quiet partner, and cleaning up connections found gone.
 */
export class Heartbeat extends Construct {
  readonly heartbeatFunction: ServiceFunction;
  readonly rule: Rule;

  constructor(scope: Construct, id: string, props: HeartbeatProps) {
    super(scope, id);
    this.heartbeatFunction = new ServiceFunction(this, 'Heartbeat', {
      entry: HEARTBEAT.handler,
      description: `Every ${HEARTBEAT.intervalMinutes} minutes: a heartbeat to every WebSocket connection`,
      tables: props.tables,
      bindings: HEARTBEAT.tables,
      // One page of connections at a time, FAN_OUT.postConcurrency posts in flight: a minute covers tens of
      // thousands of connections, and still ends long before the next beat.
      timeout: Duration.seconds(60),
    });
    grantConnectionManagement(this.heartbeatFunction, props.stage);
    this.rule = new Rule(this, 'Schedule', {
      schedule: Schedule.rate(Duration.minutes(HEARTBEAT.intervalMinutes)),
      // No retries: a late retry would overlap the next beat, and one missed beat still leaves a connection
      // active within the idle timeout (two intervals are less than 10 minutes).
      targets: [new LambdaFunction(this.heartbeatFunction.lambda, { retryAttempts: 0 })],
    });
  }
}

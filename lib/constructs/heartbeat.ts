import { Duration } from 'aws-cdk-lib';
import type { WebSocketStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Construct } from 'constructs';
import { HEARTBEAT } from '#contracts/websocket';
import { ScheduledFunction } from './scheduled-function.ts';
import type { ServiceFunction, TableConstructs } from './service-function.ts';
import { grantConnectionManagement } from './websocket-api.ts';

export interface HeartbeatProps {
  readonly tables: TableConstructs;
  /** The WebSocket stage whose connections receive the heartbeat. */
  readonly stage: WebSocketStage;
}

/**
 * The heartbeat: an EventBridge schedule that runs the heartbeat function every HEARTBEAT.intervalMinutes,
 * posting `{"op":"heartbeat"}` to every connection so API Gateway's 10-minute idle timeout never drops a
 * quiet partner, and cleaning up connections found gone. Like every schedule it does not retry: one missed
 * beat still leaves a connection active within the idle timeout (two intervals are less than 10 minutes).
 */
export class Heartbeat extends ScheduledFunction {
  constructor(scope: Construct, id: string, props: HeartbeatProps) {
    super(scope, id, {
      functionId: 'Heartbeat',
      entry: HEARTBEAT.handler,
      description: `Every ${HEARTBEAT.intervalMinutes} minutes: a heartbeat to every WebSocket connection`,
      tables: props.tables,
      bindings: HEARTBEAT.tables,
      // One page of connections at a time, POST_CONCURRENCY posts in flight: a minute covers tens of
      // thousands of connections, and still ends long before the next beat.
      timeout: Duration.seconds(60),
      rate: Duration.minutes(HEARTBEAT.intervalMinutes),
    });
    grantConnectionManagement(this.heartbeatFunction, props.stage);
  }

  get heartbeatFunction(): ServiceFunction {
    return this.function;
  }
}

import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { STACK_NAME } from '#contracts/stack-outputs';
import { MarketDataStack } from '#lib/market-data-stack';
import cdkJson from '../../../cdk.json' with { type: 'json' };

/**
 * The context `cdk synth` gives the app (cdk.json's feature flags), plus an empty bundling selection: with no
 * stack selected for bundling, NodejsFunction skips esbuild and the tests synthesize in memory, in seconds.
 */
export const TEST_CONTEXT = { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] };

/** An app with the test context, plus any extra context (e.g. `cdk deploy -c key=value`). */
export function testApp(context: Readonly<Record<string, string>> = {}): App {
  return new App({ context: { ...TEST_CONTEXT, ...context } });
}

/** The whole service stack: with its WebSocket parts (they are left out only with `-c webSocket=false`). */
export type FullServiceStack = MarketDataStack &
  Required<Pick<MarketDataStack, 'webSocketApi' | 'fanOut' | 'heartbeat'>>;

function isFull(stack: MarketDataStack): stack is FullServiceStack {
  return stack.webSocketApi !== undefined && stack.fanOut !== undefined && stack.heartbeat !== undefined;
}

/** The service stack and its template, synthesized in memory with the test context plus any extra context. */
export function synthServiceStack(context: Readonly<Record<string, string>> = {}): {
  stack: FullServiceStack;
  template: Template;
} {
  const stack = new MarketDataStack(testApp(context), STACK_NAME);
  if (!isFull(stack)) throw new Error('the service stack was synthesized without its WebSocket parts');
  return { stack, template: Template.fromStack(stack) };
}

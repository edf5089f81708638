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

export function testApp(): App {
  return new App({ context: TEST_CONTEXT });
}

export function synthServiceStack(): { stack: MarketDataStack; template: Template } {
  const stack = new MarketDataStack(testApp(), STACK_NAME);
  return { stack, template: Template.fromStack(stack) };
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll } from 'vitest';
import { STACK_NAME } from '#contracts/stack-outputs';
import { MarketDataStack } from '#lib/market-data-stack';
import cdkJson from '../../../cdk.json' with { type: 'json' };

/**
 * The context `cdk synth` gives the app (cdk.json's feature flags), plus an empty bundling selection: with no
 * stack selected for bundling, NodejsFunction skips esbuild and the tests synthesize in memory, in seconds.
 */
export const TEST_CONTEXT = { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] };

/**
 * One cloud assembly directory per test file, removed after it (this module is imported by test files only, so
 * the hook is the importing file's): an App without an outdir makes a new temporary directory at every
 * synthesis and leaves it behind.
 */
const OUTDIR = mkdtempSync(join(tmpdir(), 'mda-cdk-test-'));
afterAll(() => rmSync(OUTDIR, { recursive: true, force: true }));

/** An app with the test context, plus any extra context (e.g. `cdk deploy -c key=value`). */
export function testApp(context: Readonly<Record<string, string>> = {}): App {
  return new App({ outdir: OUTDIR, context: { ...TEST_CONTEXT, ...context } });
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

import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { inject } from 'vitest';
import { STACK_NAME } from '#contracts/stack-outputs';
import { MarketDataStack } from '#lib/market-data-stack';
import cdkJson from '../../../cdk.json' with { type: 'json' };

/**
 * The context `cdk synth` gives the app (cdk.json's feature flags), plus an empty bundling selection: with no
 * stack selected for bundling, NodejsFunction skips esbuild and the tests synthesize in memory, in seconds.
 */
export const TEST_CONTEXT = { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] };

/**
 * This worker's cloud assembly directory, in the run's one made and removed by the tier's globalSetup
 * (cdk-outdir.ts): workers never write the same template file.
 */
const OUTDIR = mkdtempSync(join(inject('cdkOutdir'), 'worker-'));

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

export interface SynthesizedServiceStack {
  readonly stack: FullServiceStack;
  readonly template: Template;
}

/**
 * The stacks synthesized so far in this worker, by context. The infra tier shares modules across its test
 * files (`isolate: false`, vitest.config.ts), so most files reuse one synthesis of the default stack instead
 * of paying seconds each for their own; the tests only read a stack and its template, never change them.
 */
const synthesized = new Map<string, SynthesizedServiceStack>();

/**
 * The service stack and its template, synthesized in memory with the test context plus any extra context:
 * once per worker and context (a context the stack refuses throws every time).
 */
export function synthServiceStack(context: Readonly<Record<string, string>> = {}): SynthesizedServiceStack {
  const key = JSON.stringify(Object.entries(context).sort(([a], [b]) => a.localeCompare(b)));
  const known = synthesized.get(key);
  if (known) return known;
  const stack = new MarketDataStack(testApp(context), STACK_NAME);
  if (!isFull(stack)) throw new Error('the service stack was synthesized without its WebSocket parts');
  const result = { stack, template: Template.fromStack(stack) };
  synthesized.set(key, result);
  return result;
}

import { KinesisClient } from '@aws-sdk/client-kinesis';
import { KinesisTradeSink } from '#adapters/kinesis/trade-sink';
import { STACK_OUTPUTS } from '#contracts/stack-outputs';
import type { TradeSink } from '#domain/market-data/ports';
import { UsageError } from './cli.ts';
import { LocalTradeSink } from './local-trade-sink.ts';
import { runningLocalStack, stackOutputs } from './target.ts';

/** A local stack's origin: `url`, or the running one's (from its state file under `dataDir`). */
export async function localOrigin(url: string | undefined, dataDir: string): Promise<string> {
  const restUrl = url ?? (await runningLocalStack(dataDir))?.restUrl;
  if (!restUrl) {
    throw new UsageError('no running local stack found (start one with npm start, or pass --url or --stack)');
  }
  return new URL(restUrl).origin;
}

/** The deployed stack's trades stream, found by its output. */
export async function kinesisSink(stack: string, region?: string): Promise<TradeSink> {
  const output = await stackOutputs(stack, region);
  return new KinesisTradeSink(new KinesisClient({ region }), output(STACK_OUTPUTS.tradeStreamName));
}

/** Where trades go: a deployed stack's stream (`stack`), else the running local stack (`url` or its state). */
export async function tradeSinkFor(options: {
  stack?: string;
  region?: string;
  url?: string;
  dataDir: string;
}): Promise<TradeSink> {
  return options.stack
    ? kinesisSink(options.stack, options.region)
    : new LocalTradeSink(await localOrigin(options.url, options.dataDir));
}

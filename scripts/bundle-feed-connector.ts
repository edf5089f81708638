/**
 * `npx tsx scripts/bundle-feed-connector.ts --outdir DIR`: bundles the feed connector's process entry
 * (functions/containers/feed-connector.ts) into `DIR/feed-connector.mjs` with esbuild, as the container image
 * is built (functions/containers/feed-connector.Dockerfile runs exactly this), and prints the bundle's size.
 */
import { parseArgs } from 'node:util';
import { FEED_CONNECTOR_ENTRY } from '#contracts/feed';
import { answerHelp, exitWith, UsageError } from './lib/cli.ts';
import { bundleContainerEntry } from './lib/container-bundle.ts';

answerHelp(import.meta.url);

const COMMAND = 'bundle-feed-connector';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { outdir: { type: 'string' } }, strict: true });
  if (!values.outdir) throw new UsageError('--outdir DIR is required');
  const bundle = await bundleContainerEntry({
    entry: FEED_CONNECTOR_ENTRY,
    outdir: values.outdir,
    name: 'feed-connector',
  });
  process.stdout.write(`${COMMAND}: ${bundle.outfile} (${Math.round(bundle.bytes / 1000)} KB)\n`);
}

main().catch((error: unknown) => exitWith(COMMAND, error));

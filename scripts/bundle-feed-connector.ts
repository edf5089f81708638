/**
 * `npx tsx scripts/bundle-feed-connector.ts --outdir DIR`: bundles the containers' process entries with esbuild,
 * as the containers' image is built (functions/containers/feed-connector.Dockerfile runs exactly this), each
 * into `DIR/<entry's name>.mjs`, and prints each bundle's size:
 * - the feed connector (functions/containers/feed-connector.ts) into `DIR/feed-connector.mjs`;
 * - the ingest consumer (functions/containers/ingest-consumer.ts) into `DIR/ingest-consumer.mjs`, and its post
 *   workers' entry (functions/containers/quote-post-worker.ts) beside it, `DIR/quote-post-worker.mjs`.
 * One image holds them all; each Fargate service runs its own with its command.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { answerHelp, exitWith, UsageError } from './lib/cli.ts';
import { bundleContainerEntry, CONTAINER_ENTRIES } from './lib/container-bundle.ts';

answerHelp(import.meta.url);

const COMMAND = 'bundle-feed-connector';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { outdir: { type: 'string' } }, strict: true });
  if (!values.outdir) throw new UsageError('--outdir DIR is required');
  for (const entry of CONTAINER_ENTRIES) {
    const bundle = await bundleContainerEntry({
      entry,
      outdir: values.outdir,
      name: basename(entry, '.ts'),
    });
    process.stdout.write(`${COMMAND}: ${bundle.outfile} (${Math.round(bundle.bytes / 1000)} KB)\n`);
  }
}

main().catch((error: unknown) => exitWith(COMMAND, error));

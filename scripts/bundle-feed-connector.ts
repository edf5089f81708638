/**
 * `npx tsx scripts/bundle-feed-connector.ts --outdir DIR`: bundles the containers' process entries with esbuild,
 * as the containers' image is built (functions/containers/feed-connector.Dockerfile runs exactly this), each
 * into `DIR/<entry's name>.mjs`, and prints each bundle's size:
 * - the feed connector (functions/containers/feed-connector.ts) into `DIR/feed-connector.mjs`;
 * - the ingest consumer (functions/containers/ingest-consumer.ts) into `DIR/ingest-consumer.mjs`.
 * One image holds both; each Fargate service runs its own with its command.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { FEED_CONNECTOR_ENTRY } from '#contracts/feed';
import { INGEST_CONSUMER_ENTRY } from '#contracts/ingest-consumer';
import { answerHelp, exitWith, UsageError } from './lib/cli.ts';
import { bundleContainerEntry } from './lib/container-bundle.ts';

answerHelp(import.meta.url);

const COMMAND = 'bundle-feed-connector';

/**
 * The image's entries. A bundle is named after its entry (`ingest-consumer.ts` → `ingest-consumer.mjs`), the
 * name the services' commands run (lib/constructs/ingest-consumer.ts).
 */
const CONTAINER_ENTRIES = [FEED_CONNECTOR_ENTRY, INGEST_CONSUMER_ENTRY] as const;

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

import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { FEED_CONNECTOR_ENTRY } from '#contracts/feed';
import { INGEST_CONSUMER_ENTRY, QUOTE_POST_WORKER_ENTRY } from '#contracts/ingest-consumer';
import { CONTAINER_ESBUILD_OPTIONS } from '#lib/bundling';
import { PROJECT_ROOT } from '#lib/project-root';

export interface ContainerBundle {
  /** The bundle written (`<outdir>/<name>.mjs`, with its source map beside it). */
  readonly outfile: string;
  /** Its size in bytes. */
  readonly bytes: number;
  /** The project files and packages it was built from, relative to the project root. */
  readonly inputs: readonly string[];
}

const NODE_BUILTINS = new Set(builtinModules);

/**
 * The containers' image's entries (functions/containers/feed-connector.Dockerfile): the feed connector, the
 * ingest consumer and its post workers, each bundled into `<its name>.mjs`, the name the services' commands
 * and the consumer's workers run.
 */
export const CONTAINER_ENTRIES = [
  FEED_CONNECTOR_ENTRY,
  INGEST_CONSUMER_ENTRY,
  QUOTE_POST_WORKER_ENTRY,
] as const;

/**
 * Packages a bundle may still name without holding them, each for its reason. esbuild leaves a `require()` it
 * cannot resolve in the bundle only when the call sits in a try/catch, i.e. the caller does without it:
 * - `bufferutil`, `utf-8-validate`: ws's optional native speed-ups (not installed); ws falls back to
 *   JavaScript.
 */
export const OPTIONAL_MODULES: ReadonlySet<string> = new Set(['bufferutil', 'utf-8-validate']);

/** Whether an import left in a bundle is one of Node's own modules (all a container has). */
export function isNodeBuiltin(path: string): boolean {
  return path.startsWith('node:') || NODE_BUILTINS.has(path);
}

/**
 * Bundles a container's process entry (relative to `root`) into `<outdir>/<name>.mjs` with the container
 * settings of lib/bundling.ts. Fails, naming them, when the bundle still imports anything but Node's built-ins
 * and the OPTIONAL_MODULES: the image holds the bundle alone, so such an import would only fail when the
 * task starts.
 */
export async function bundleContainerEntry(options: {
  readonly entry: string;
  readonly outdir: string;
  readonly name: string;
  readonly root?: string;
}): Promise<ContainerBundle> {
  const outfile = join(options.outdir, `${options.name}.mjs`);
  const result = await build({
    ...CONTAINER_ESBUILD_OPTIONS,
    absWorkingDir: options.root ?? PROJECT_ROOT,
    entryPoints: [options.entry],
    outfile,
    logLevel: 'silent',
  });
  const [output] = Object.entries(result.metafile.outputs).filter(([path]) => path.endsWith('.mjs'));
  if (!output) throw new Error(`esbuild wrote no bundle for ${options.entry}`);
  const unresolved = output[1].imports
    .map(({ path }) => path)
    .filter((path) => !isNodeBuiltin(path) && !OPTIONAL_MODULES.has(path));
  if (unresolved.length > 0) {
    throw new Error(
      `the bundle of ${options.entry} imports what the image will not hold: ${[...new Set(unresolved)].join(', ')}`,
    );
  }
  return { outfile, bytes: output[1].bytes, inputs: Object.keys(result.metafile.inputs) };
}

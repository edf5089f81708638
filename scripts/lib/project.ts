import { join } from 'node:path';
import { PROJECT_ROOT } from '#lib/project-root';

/** Where the local stack keeps its data and the files other commands read to find it. */
export const DEFAULT_DATA_DIR = join(PROJECT_ROOT, '.data');

export const UNIVERSE_CSV = join(PROJECT_ROOT, 'data', 'universe.csv');

/** Written by a running local stack (under its data folder) so operator commands can find it. */
export const LOCAL_STACK_STATE_FILE = 'local-stack.json';

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's root folder, wherever the CDK app, a script or a test is started from. */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

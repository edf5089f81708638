/** `npm run openapi`: writes docs/openapi.json from the route table and the handlers' contracts. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#lib/project-root';
import { answerHelp } from './lib/cli.ts';
import { openApiDocument } from './lib/openapi.ts';

answerHelp(import.meta.url);

const OPENAPI_FILE = join(PROJECT_ROOT, 'docs', 'openapi.json');

await writeFile(OPENAPI_FILE, `${JSON.stringify(await openApiDocument(), null, 2)}\n`);
process.stdout.write(`Wrote ${OPENAPI_FILE}\n`);

/** `npm run asyncapi`: writes docs/asyncapi.json from the WebSocket contracts and the message schemas. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#lib/project-root';
import { asyncApiDocument } from './lib/asyncapi.ts';
import { answerHelp } from './lib/cli.ts';

answerHelp(import.meta.url);

const ASYNCAPI_FILE = join(PROJECT_ROOT, 'docs', 'asyncapi.json');

await writeFile(ASYNCAPI_FILE, `${JSON.stringify(asyncApiDocument(), null, 2)}\n`);
process.stdout.write(`Wrote ${ASYNCAPI_FILE}\n`);

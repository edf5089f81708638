/** `npm run asyncapi`: writes docs/asyncapi.json from the WebSocket contracts and the message schemas. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { asyncApiDocument } from './lib/asyncapi.ts';
import { PROJECT_ROOT } from './lib/project.ts';

const ASYNCAPI_FILE = join(PROJECT_ROOT, 'docs', 'asyncapi.json');

await writeFile(ASYNCAPI_FILE, `${JSON.stringify(asyncApiDocument(), null, 2)}\n`);
process.stdout.write(`Wrote ${ASYNCAPI_FILE}\n`);

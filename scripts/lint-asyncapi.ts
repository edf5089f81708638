/**
 * `npm run lint:api` (its AsyncAPI part): parses docs/asyncapi.json with the AsyncAPI parser and fails on any
 * error or warning; information and hints are printed only.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#lib/project-root';
import { asyncApiDiagnostics } from './lib/asyncapi-lint.ts';
import { answerHelp } from './lib/cli.ts';

answerHelp(import.meta.url);

const file = join(PROJECT_ROOT, 'docs', 'asyncapi.json');
const { failing, notes } = await asyncApiDiagnostics(await readFile(file, 'utf8'));
for (const finding of [...failing, ...notes]) process.stderr.write(`${file}: ${finding}\n`);
if (failing.length > 0) process.exit(1);
process.stdout.write(`${file}: valid AsyncAPI, no errors or warnings\n`);

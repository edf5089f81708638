/** `npm run client-contracts`: writes clients/typescript/src/contracts.ts from the service's contracts. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROJECT_ROOT } from '#lib/project-root';
import { answerHelp } from './lib/cli.ts';
import { clientContractsSource } from './lib/client-contracts.ts';

answerHelp(import.meta.url);

export const CLIENT_CONTRACTS_FILE = join(PROJECT_ROOT, 'clients', 'typescript', 'src', 'contracts.ts');

await writeFile(CLIENT_CONTRACTS_FILE, await clientContractsSource());
process.stdout.write(`Wrote ${CLIENT_CONTRACTS_FILE}\n`);

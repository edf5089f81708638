/**
 * `npm run seed [-- --stack NAME --region R]`: loads the tracked universe (data/universe.csv) into the
 * instruments table: the running local stack's by default (it seeds itself on first start), or a deployed
 * stack's. Re-running it overwrites the instruments with the file's values.
 */
import { parseArgs } from 'node:util';
import { DynamoInstrumentCatalog } from '#adapters/dynamo/instrument-catalog';
import { answerHelp, exitWith } from './lib/cli.ts';
import { resolveTarget, TARGET_ARGS } from './lib/target.ts';
import { seedUniverse } from './lib/universe.ts';

answerHelp(import.meta.url);

try {
  const { values } = parseArgs({ options: { ...TARGET_ARGS, file: { type: 'string' } } });
  const target = await resolveTarget({
    stack: values.stack,
    region: values.region,
    endpoint: values.endpoint,
    dataDir: values['data-dir'],
  });
  const catalog = new DynamoInstrumentCatalog(target.documents, target.tableNames.instruments);
  const instruments = await seedUniverse(catalog, values.file);
  process.stdout.write(`Seeded ${instruments.length} instruments into ${target.description}\n`);
} catch (error) {
  exitWith('seed', error);
}

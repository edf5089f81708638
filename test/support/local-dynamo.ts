import { afterAll, beforeAll } from 'vitest';
import { type LocalDynamo, localDynamoClient, startLocalDynamo } from '../../scripts/local/dynamo.ts';
import { ensureTables } from '../../scripts/local/tables.ts';

/**
 * A local DynamoDB (dynalite, on a free port) with the service's tables, for one test file: started before
 * its tests, stopped after. Returns the running instance's getter.
 */
export function useLocalDynamo(): () => LocalDynamo {
  let dynamo: LocalDynamo | undefined;
  beforeAll(async () => {
    dynamo = await startLocalDynamo({ port: 0 });
    await ensureTables(localDynamoClient(dynamo.endpoint));
  });
  afterAll(() => dynamo?.stop());
  return () => {
    if (!dynamo) throw new Error('the local DynamoDB is not started yet');
    return dynamo;
  };
}

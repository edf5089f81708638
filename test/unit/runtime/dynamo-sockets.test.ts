import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DYNAMO_CALLS_IN_FLIGHT } from '#runtime/sdk-clients';
import { holdingServer } from './holding-server.ts';

let server: Awaited<ReturnType<typeof holdingServer>>;
const saved = { ...process.env };
beforeAll(async () => {
  server = await holdingServer();
  // The runtime's client finds its endpoint, region and credentials as a Lambda's does: in the environment.
  process.env.AWS_ENDPOINT_URL_DYNAMODB = server.url;
  process.env.AWS_REGION = 'us-east-1';
  process.env.AWS_ACCESS_KEY_ID = 'local';
  process.env.AWS_SECRET_ACCESS_KEY = 'local';
});
afterAll(() => {
  process.env = saved;
  server.close();
});

describe('the functions’ DynamoDB client (functions/runtime/dynamo.ts)', () => {
  it('has an ingest commit’s ledger writes and state puts in flight at once, not the SDK’s 50', async () => {
    const { documentClient } = await import('#runtime/dynamo');
    const client = documentClient();
    const calls = Array.from({ length: 200 }, (_, index) =>
      client.send(new GetCommand({ TableName: 'ledgers', Key: { symbol: `S${index}` } })),
    );
    const most = await server.inFlight(calls, DYNAMO_CALLS_IN_FLIGHT, '{}');

    expect(DYNAMO_CALLS_IN_FLIGHT).toBeGreaterThanOrEqual(128);
    expect(most).toBe(DYNAMO_CALLS_IN_FLIGHT);
  });
});

import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../../../scripts/local/dynamo.ts';

/** A stand-in for dynalite that keeps each request's headers and answers an empty table list. */
const seen: IncomingHttpHeaders[] = [];
const server = createServer((request, response) => {
  seen.push(request.headers);
  request.resume();
  request.on('end', () => {
    response.setHeader('content-type', 'application/x-amz-json-1.0');
    response.end('{"TableNames":[]}');
  });
});

beforeAll(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('the local stack’s DynamoDB client', () => {
  it('sends a well-formed SigV4 header and date, as dynalite checks, without computing a signature', async () => {
    const { port } = server.address() as AddressInfo;
    const client = localDynamoClient(`http://127.0.0.1:${port}`);

    await client.send(new ListTablesCommand({}));
    await client.send(new ListTablesCommand({ Limit: 5 }));

    expect(seen).toHaveLength(2);
    for (const headers of seen) {
      expect(headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/dynamodb\/aws4_request, SignedHeaders=\S+, Signature=0{64}$/,
      );
      expect(headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
      expect(headers['x-amz-target']).toMatch(/^DynamoDB_20120810\.ListTables$/);
    }
    // Two different bodies, the same header: nothing was derived from the request.
    expect(seen[0]?.authorization).toBe(seen[1]?.authorization);
  });
});

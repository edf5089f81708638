/**
 * `npm run usage -- --from YYYY-MM-DD --to YYYY-MM-DD [--account A] [--format table|csv] [--stack NAME [--region R]]`:
 * the billing report (docs/operations.md#usage-report). Per day (UTC), account, key id and channel, the number
 * of pushed `ws_message` events (the fan-out's usage rows); per day, account and key id, the REST requests (the
 * usage plan's counts on AWS, the local gateway's own counts locally). The rows are read from the usage
 * bucket's day prefixes on AWS, from the local stack's usage files locally (docs/storage.md#usage-rows), and
 * from the DynamoDB usage table, where the fan-out wrote them before, until its rows expire. Without
 * `--stack`, the running local stack (or `--url` with `--endpoint`, its REST URL and DynamoDB endpoint).
 */
import { parseArgs } from 'node:util';
import { APIGatewayClient, GetApiKeysCommand, GetUsageCommand } from '@aws-sdk/client-api-gateway';
import { S3Client } from '@aws-sdk/client-s3';
import { type DynamoDBDocumentClient, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoApiKeyStore } from '#adapters/dynamo/api-key-store';
import { STACK_OUTPUTS } from '#contracts/stack-outputs';
import { answerHelp, exitWith, UsageError } from './lib/cli.ts';
import { DEFAULT_DATA_DIR } from './lib/project.ts';
import { resolveTarget, runningLocalStack, stackOutputs } from './lib/target.ts';
import {
  countPushedMessages,
  daysBetween,
  formatUsage,
  type PushedMessage,
  type RestUsage,
} from './lib/usage-report.ts';
import { fileUsageObjects, pushedRows, s3UsageObjects, type UsageObjects } from './lib/usage-rows.ts';

answerHelp(import.meta.url);

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

async function allPages(
  documents: DynamoDBDocumentClient,
  command: (startKey?: Record<string, unknown>) => QueryCommand | ScanCommand,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(command(startKey) as QueryCommand);
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * An account's pushed messages of the days in the DynamoDB usage table, where the fan-out wrote them before
 * the usage bucket (kept until they expire), by its rows' key range (a day's margin: rows sort by commit time).
 */
async function tablePushedMessages(
  documents: DynamoDBDocumentClient,
  usageTable: string,
  accountId: string,
  from: string,
  to: string,
): Promise<PushedMessage[]> {
  const low = new Date(Date.parse(`${from}T00:00:00Z`) - DAY_MS).toISOString();
  const high = `${new Date(Date.parse(`${to}T00:00:00Z`) + 2 * DAY_MS).toISOString()}~`;
  const items = await allPages(
    documents,
    (startKey) =>
      new QueryCommand({
        TableName: usageTable,
        KeyConditionExpression: 'accountId = :account AND messageId BETWEEN :low AND :high',
        ExpressionAttributeValues: { ':account': accountId, ':low': low, ':high': high },
        ProjectionExpression: 'accountId, keyId, channel, #time, messageId',
        ExpressionAttributeNames: { '#time': 'time' },
        ExclusiveStartKey: startKey,
      }),
  );
  return (items as unknown as PushedMessage[]).filter(({ time }) => {
    const date = time.slice(0, 10);
    return date >= from && date <= to;
  });
}

/** REST requests per key from the usage plan (AWS): API Gateway keys are named after our key ids. */
async function usagePlanRequests(
  stack: string,
  region: string | undefined,
  from: string,
  to: string,
  accountOf: (keyId: string) => Promise<string | undefined>,
): Promise<RestUsage[]> {
  const output = await stackOutputs(stack, region);
  const apiGateway = new APIGatewayClient({ region });
  const usage = await apiGateway.send(
    new GetUsageCommand({ usagePlanId: output(STACK_OUTPUTS.usagePlanId), startDate: from, endDate: to }),
  );
  const keys = await apiGateway.send(new GetApiKeysCommand({ limit: 500 }));
  const nameOf = new Map((keys.items ?? []).map((key) => [key.id, key.name]));
  const days = daysBetween(from, to);
  const rows: RestUsage[] = [];
  for (const [apiKeyId, perDay] of Object.entries(usage.items ?? {})) {
    const keyId = nameOf.get(apiKeyId) ?? apiKeyId;
    const account = (await accountOf(keyId)) ?? '';
    perDay.forEach(([used], index) => {
      if (used) rows.push({ date: days[index] ?? '', account, keyId, requests: Number(used) });
    });
  }
  return rows;
}

try {
  const { values } = parseArgs({
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      account: { type: 'string' },
      format: { type: 'string', default: 'table' },
      stack: { type: 'string' },
      region: { type: 'string' },
      url: { type: 'string' },
      endpoint: { type: 'string' },
      'data-dir': { type: 'string', default: DEFAULT_DATA_DIR },
    },
  });
  const { from, to, format } = values;
  if (!from || !to || !DAY.test(from) || !DAY.test(to)) {
    throw new UsageError('--from and --to are required, as YYYY-MM-DD (UTC days, inclusive)');
  }
  if (from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
  if (format !== 'table' && format !== 'csv') throw new UsageError(`--format ${format} must be table or csv`);

  const target = await resolveTarget({
    stack: values.stack,
    region: values.region,
    endpoint: values.endpoint,
    dataDir: values['data-dir'],
  });
  const accounts = values.account
    ? [values.account]
    : (
        await allPages(
          target.documents,
          (startKey) =>
            new ScanCommand({
              TableName: target.tableNames.accounts,
              ProjectionExpression: 'accountId',
              ExclusiveStartKey: startKey,
            }),
        )
      ).map((item) => item.accountId as string);
  const fromTable = (
    await Promise.all(
      accounts.map((account) =>
        tablePushedMessages(target.documents, target.tableNames.usage, account, from, to),
      ),
    )
  ).flat();

  let rest: RestUsage[];
  let usageObjects: UsageObjects;
  if (values.stack) {
    const output = await stackOutputs(values.stack, values.region);
    usageObjects = s3UsageObjects(
      new S3Client({ region: values.region }),
      output(STACK_OUTPUTS.usageBucketName),
    );
    const keys = new DynamoApiKeyStore(target.documents, target.tableNames.apiKeys);
    rest = await usagePlanRequests(
      values.stack,
      values.region,
      from,
      to,
      async (keyId) => (await keys.get(keyId))?.accountId,
    );
  } else {
    const restUrl = values.url ?? (await runningLocalStack(values['data-dir']))?.restUrl;
    if (!restUrl)
      throw new UsageError(
        'no running local stack found (start one with npm start, or pass --url or --stack)',
      );
    const response = await fetch(`${new URL(restUrl).origin}/_local/usage?from=${from}&to=${to}`);
    const local = (await response.json()) as { rest: RestUsage[]; usageRoot: string };
    rest = local.rest;
    usageObjects = fileUsageObjects(local.usageRoot);
  }
  const delivered = await pushedRows(usageObjects, { from, to, account: values.account });
  if (delivered.unreadable > 0) {
    process.stderr.write(
      `usage: ${delivered.unreadable} lines of the usage objects were not rows (skipped)\n`,
    );
  }
  // A row in both places (written to the table, then again after the switch by a redelivery) counts once.
  const pushed = [
    ...new Map(
      [...fromTable, ...delivered.rows].map((row) => [`${row.accountId}\u0000${row.messageId}`, row]),
    ).values(),
  ];
  if (values.account) rest = rest.filter((row) => row.account === values.account);
  process.stdout.write(formatUsage({ webSocket: countPushedMessages(pushed), rest }, format));
} catch (error) {
  exitWith('usage', error);
}

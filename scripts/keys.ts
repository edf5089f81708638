/**
 * `npm run keys -- <command>`: API key and entitlement administration
 * (docs/partner-guide.md#getting-and-revoking-keys).
 *
 *   create --account A --scopes s1,s2 --label L   a new key; its raw value is printed once, as the last line
 *   list --account A                               the account's keys (never a raw key)
 *   revoke <key-id>                                the key stops working (within the authorizer's cache TTL)
 *   entitlement --account A --status active|inactive
 *
 * By default it acts on the running local stack. `--stack MarketDataAlerts [--region R]` acts on a deployed
 * stack with the default AWS credentials, and also registers or removes the key in the usage plan.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DynamoAccountStore } from '#adapters/dynamo/account-store';
import { DynamoApiKeyStore } from '#adapters/dynamo/api-key-store';
import { ENTITLEMENT_STATUSES, type EntitlementStatus } from '#domain/access/accounts';
import type { ApiKeyRecord } from '#domain/access/api-keys';
import { answerHelp, exitWith, UsageError } from './lib/cli.ts';
import {
  createKey,
  KeyAdministrationError,
  type KeyAdministrationPorts,
  listKeys,
  parseScopes,
  revokeKey,
  setEntitlement,
} from './lib/key-administration.ts';
import { resolveTarget, TARGET_ARGS } from './lib/target.ts';

answerHelp(import.meta.url);

const USAGE = `usage: npm run keys -- <create|list|revoke|entitlement> [options]
  create --account A --scopes metadata:read,prices:read --label "L"
  list --account A
  revoke <key-id>
  entitlement --account A --status active|inactive
  target: (default) the running local stack; --stack NAME [--region R] a deployed stack`;

function required(value: string | undefined, name: string): string {
  if (!value) throw new UsageError(`--${name} is required\n${USAGE}`);
  return value;
}

function describeKey(record: ApiKeyRecord): string {
  const status = record.revokedAt ? `revoked ${record.revokedAt}` : 'active';
  return [record.keyId, record.label, record.scopes.join(','), record.createdAt, status].join('\t');
}

async function run(argv: string[]): Promise<string[]> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...TARGET_ARGS,
      account: { type: 'string' },
      scopes: { type: 'string' },
      label: { type: 'string' },
      status: { type: 'string' },
    },
  });
  const [command, ...rest] = positionals;
  const target = await resolveTarget({
    stack: values.stack,
    region: values.region,
    endpoint: values.endpoint,
    dataDir: values['data-dir'],
  });
  const ports: KeyAdministrationPorts = {
    keys: new DynamoApiKeyStore(target.documents, target.tableNames.apiKeys),
    accounts: new DynamoAccountStore(target.documents, target.tableNames.accounts),
    usagePlan: target.usagePlan,
    now: () => new Date(),
    randomBytes,
  };

  switch (command) {
    case 'create': {
      const { record, rawKey } = await createKey(
        {
          accountId: required(values.account, 'account'),
          label: required(values.label, 'label'),
          scopes: parseScopes(required(values.scopes, 'scopes')),
        },
        ports,
      );
      return [
        `Created key ${record.keyId} for account ${record.accountId} on ${target.description}`,
        `  label:  ${record.label}`,
        `  scopes: ${record.scopes.join(', ')}`,
        'The key is shown once and cannot be retrieved later; store it now:',
        rawKey,
      ];
    }
    case 'list': {
      const records = await listKeys(required(values.account, 'account'), ports);
      return ['key-id\tlabel\tscopes\tcreated\tstatus', ...records.map(describeKey)];
    }
    case 'revoke': {
      const [keyId] = rest;
      if (!keyId) throw new UsageError(`revoke needs a key id\n${USAGE}`);
      const record = await revokeKey(keyId, ports);
      return [`Revoked key ${record.keyId} (account ${record.accountId}) at ${record.revokedAt}`];
    }
    case 'entitlement': {
      const status = required(values.status, 'status');
      if (!ENTITLEMENT_STATUSES.includes(status as EntitlementStatus)) {
        throw new UsageError(`--status must be one of ${ENTITLEMENT_STATUSES.join(', ')}`);
      }
      const account = await setEntitlement(
        { accountId: required(values.account, 'account'), status: status as EntitlementStatus },
        ports,
      );
      return [`Account ${account.accountId}: entitlement ${account.entitlement} (${account.updatedAt})`];
    }
    default:
      throw new UsageError(command ? `unknown command "${command}"\n${USAGE}` : USAGE);
  }
}

try {
  process.stdout.write(`${(await run(process.argv.slice(2))).join('\n')}\n`);
} catch (error) {
  exitWith('keys', error instanceof KeyAdministrationError ? new UsageError(error.message) : error);
}

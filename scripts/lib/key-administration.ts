import { isScope, type Scope } from '#contracts/scopes';
import type { Account, EntitlementStatus } from '#domain/access/accounts';
import { type ApiKeyRecord, issueApiKey, type RandomBytes } from '#domain/access/api-keys';
import type { AccountStore, ApiKeyStore, UsagePlanRegistry } from '#domain/access/ports';

/** What the operator's key commands need; `usagePlan` only where API Gateway throttles (AWS). */
export interface KeyAdministrationPorts {
  readonly keys: ApiKeyStore;
  readonly accounts: AccountStore;
  readonly usagePlan?: UsagePlanRegistry;
  readonly now: () => Date;
  readonly randomBytes: RandomBytes;
}

/** An operator's request that cannot be carried out as asked. */
export class KeyAdministrationError extends Error {}

const ACCOUNT_ID = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;

function requireAccountId(accountId: string): string {
  if (!ACCOUNT_ID.test(accountId)) {
    throw new KeyAdministrationError(
      `account id "${accountId}" must be 1-128 letters, digits or . _ @ -, starting with a letter or digit`,
    );
  }
  return accountId;
}

export function parseScopes(list: string): Scope[] {
  const names = [...new Set(list.split(',').map((name) => name.trim()))].filter(Boolean);
  const unknown = names.filter((name) => !isScope(name));
  if (unknown.length > 0) throw new KeyAdministrationError(`unknown scope(s): ${unknown.join(', ')}`);
  if (names.length === 0) throw new KeyAdministrationError('a key needs at least one scope');
  return names as Scope[];
}

/**
 * Creates a key for an account; an account seen for the first time is created with an active entitlement
 * (it has just subscribed: docs/partner-guide.md#getting-and-revoking-keys). The raw key is returned once and
 * stored nowhere.
 */
export async function createKey(
  request: { accountId: string; label: string; scopes: readonly Scope[] },
  ports: KeyAdministrationPorts,
): Promise<{ record: ApiKeyRecord; rawKey: string }> {
  const accountId = requireAccountId(request.accountId);
  const label = request.label.trim();
  if (label === '') throw new KeyAdministrationError('a key needs a label');
  const now = ports.now().toISOString();
  if (!(await ports.accounts.get(accountId))) {
    await ports.accounts.put({ accountId, entitlement: 'active', updatedAt: now });
  }
  const issued = issueApiKey(ports.randomBytes);
  const record: ApiKeyRecord = {
    keyId: issued.keyId,
    accountId,
    label,
    scopes: [...request.scopes],
    secretHash: issued.secretHash,
    usageIdentifierKey: issued.usageIdentifierKey,
    createdAt: now,
  };
  await ports.keys.create(record);
  await ports.usagePlan?.register(record);
  return { record, rawKey: issued.rawKey };
}

export async function listKeys(accountId: string, ports: KeyAdministrationPorts): Promise<ApiKeyRecord[]> {
  return ports.keys.listByAccount(requireAccountId(accountId));
}

export async function revokeKey(keyId: string, ports: KeyAdministrationPorts): Promise<ApiKeyRecord> {
  const record = await ports.keys.revoke(keyId, ports.now().toISOString());
  if (!record) throw new KeyAdministrationError(`no key with id "${keyId}"`);
  await ports.usagePlan?.deregister(keyId);
  return record;
}

export async function setEntitlement(
  request: { accountId: string; status: EntitlementStatus },
  ports: KeyAdministrationPorts,
): Promise<Account> {
  const account: Account = {
    accountId: requireAccountId(request.accountId),
    entitlement: request.status,
    updatedAt: ports.now().toISOString(),
  };
  await ports.accounts.put(account);
  return account;
}

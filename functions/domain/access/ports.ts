import type { Account } from './accounts.ts';
import type { ApiKeyRecord } from './api-keys.ts';
import type { RestLimits } from './throughput.ts';

export interface ApiKeyStore {
  get(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** The keys of those ids that exist, in any order (an id asked for twice is read once). */
  getMany(keyIds: readonly string[]): Promise<ApiKeyRecord[]>;
  /** Writes a new key; fails if the key id is taken. */
  create(record: ApiKeyRecord): Promise<void>;
  listByAccount(accountId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked (first revocation time wins); `undefined` when there is no such key. */
  revoke(keyId: string, revokedAt: string): Promise<ApiKeyRecord | undefined>;
}

export interface AccountStore {
  get(accountId: string): Promise<Account | undefined>;
  /** The accounts of those ids that exist, in any order (an id asked for twice is read once). */
  getMany(accountIds: readonly string[]): Promise<Account[]>;
  put(account: Account): Promise<void>;
}

/** A key with its account, as the authorizer needs them together. */
export interface Credential {
  readonly key: ApiKeyRecord;
  readonly account: Account | undefined;
}

export type CredentialLookup = (keyId: string) => Promise<Credential | undefined>;

/** Many keys with their accounts at once (the fan-out's subscribers); a key id that is no key is absent. */
export type CredentialsLookup = (keyIds: readonly string[]) => Promise<ReadonlyMap<string, Credential>>;

/** The usage plan that throttles each key (AWS only: the local gateway throttles by the same identifier). */
export interface UsagePlanRegistry {
  register(key: Pick<ApiKeyRecord, 'keyId' | 'label' | 'usageIdentifierKey'>): Promise<void>;
  deregister(keyId: string): Promise<void>;
}

/** Where each key's REST limits apply: the usage plan's throttle on AWS, the local gateway's token buckets. */
export interface ThroughputTarget {
  /** The limits in force, when known. */
  current(): Promise<RestLimits | undefined>;
  apply(limits: RestLimits): Promise<void>;
}

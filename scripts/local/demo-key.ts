import { readFile, writeFile } from 'node:fs/promises';
import { SCOPES } from '#contracts/scopes';
import { keyIdOf, keyMatchesHash } from '#domain/access/api-keys';
import { createKey, type KeyAdministrationPorts } from '../lib/key-administration.ts';

export const DEMO_ACCOUNT = 'demo';

async function readKeyFile(file: string): Promise<string | undefined> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    return undefined;
  }
}

/**
 * The local stack's demo key: every scope, account `demo`. The raw key of a stored key cannot be read
 * back, so the local stack keeps it in a file under .data/ (never on AWS) and makes a new one when that
 * key is gone or revoked.
 */
export async function ensureDemoKey(ports: KeyAdministrationPorts, file?: string): Promise<string> {
  const saved = file ? await readKeyFile(file) : undefined;
  const keyId = saved ? keyIdOf(saved) : undefined;
  const record = keyId ? await ports.keys.get(keyId) : undefined;
  if (saved && record && !record.revokedAt && keyMatchesHash(saved, record.secretHash)) return saved;

  const { rawKey } = await createKey(
    { accountId: DEMO_ACCOUNT, label: 'local demo key (every scope)', scopes: SCOPES },
    ports,
  );
  if (file) await writeFile(file, `${rawKey}\n`, { mode: 0o600 });
  return rawKey;
}

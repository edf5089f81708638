import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '#lib/project-root';
import { clientContractsSource } from '#scripts/lib/client-contracts';

const source = await clientContractsSource();

describe('the client library contracts', () => {
  it('are the committed clients/typescript/src/contracts.ts (run npm run client-contracts after a change)', () => {
    const committed = readFileSync(
      join(PROJECT_ROOT, 'clients', 'typescript', 'src', 'contracts.ts'),
      'utf8',
    );
    expect(committed).toBe(source);
  });

  it('type each route query parameter in its wire form: limit a number, symbols a list', () => {
    expect(source).toMatch(
      /export interface ListInstrumentsQuery \{[^}]*symbols\?: string\[\];[^}]*limit\?: number;/s,
    );
    expect(source).toMatch(/export interface LatestPricesQuery \{[^}]*symbols: string\[\];/s);
    expect(source).toMatch(/since_id\?: number \| 'latest';/);
  });

  it('name the pushed events and their data with the REST shapes', () => {
    expect(source).toMatch(/export interface InForceAlertPush \{[^}]*data: InForceAlert;/s);
    expect(source).toMatch(/export interface InForceAlert \{[^}]*id: number;/s);
  });
});

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoBarStore } from '#adapters/dynamo/bar-store';
import { DynamoInstrumentCatalog } from '#adapters/dynamo/instrument-catalog';
import { DynamoLedgerStore } from '#adapters/dynamo/ledger-store';
import { DynamoSetupStore, DynamoStateStore } from '#adapters/dynamo/strat-state-stores';
import type { TableId } from '#contracts/tables';
import { type BarFile, type BarFileInterval, readBarFile } from '#domain/market-data/bar-file';
import {
  type HistoryImportOptions,
  type HistoryImportOutcome,
  type HistoryImportPorts,
  importHistory,
} from '#use-cases/import-history';

/**
 * The one way history gets in (docs/backfill.md): a bar file's text is read and checked whole against the
 * universe and the service clock, then imported into the stores. `npm run backfill` and the local stack's
 * first-start history (scripts/local/history-backfill.ts) both call `importBarText`.
 */
export interface HistoryTarget {
  readonly documents: DynamoDBDocumentClient;
  readonly tableNames: Readonly<Record<TableId, string>>;
}

/** The import's ports on a target's tables, and the universe (symbol -> sector) read from its instruments. */
export async function historyPorts(
  target: HistoryTarget,
  nowMs: () => number,
): Promise<{ ports: HistoryImportPorts; sectors: ReadonlyMap<string, string> }> {
  const { documents, tableNames } = target;
  const instruments = await new DynamoInstrumentCatalog(documents, tableNames.instruments).list({
    limit: Number.MAX_SAFE_INTEGER,
  });
  const sectors = new Map(
    instruments.filter(({ active }) => active).map(({ symbol, sector }) => [symbol, sector]),
  );
  return {
    sectors,
    ports: {
      ledgers: new DynamoLedgerStore(documents, tableNames.ledgers),
      bars: new DynamoBarStore(documents, tableNames.bars),
      states: new DynamoStateStore(documents, tableNames.states),
      setups: new DynamoSetupStore(documents, tableNames.setups),
      sectorOf: (symbol) => sectors.get(symbol) ?? '',
      nowMs,
    },
  };
}

/** Reads and checks a bar file (a BarFileError when it is refused: nothing written), then imports it. */
export async function importBarText(
  text: string,
  interval: BarFileInterval,
  target: HistoryTarget,
  options: HistoryImportOptions & {
    readonly nowMs: () => number;
    readonly onChecked?: (file: BarFile) => void;
  },
): Promise<{ file: BarFile; outcome: HistoryImportOutcome }> {
  const { ports, sectors } = await historyPorts(target, options.nowMs);
  const file = readBarFile(text, {
    interval,
    isKnownSymbol: (symbol) => sectors.has(symbol),
    nowMs: options.nowMs(),
  });
  options.onChecked?.(file);
  return { file, outcome: await importHistory(file, ports, options) };
}

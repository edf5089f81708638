import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import { DynamoSetupStore, DynamoStateStore } from '#adapters/dynamo/strat-state-stores';
import {
  BREAKS_FEED,
  IN_FORCE_FEED,
  type InForceAlertBody,
  type SimultaneousBreakBody,
} from '#domain/strat/alerts';
import { memo } from '../memo.ts';
import { AWS_TABLES } from './aws-tables.ts';
import type { TableContext } from './context.ts';

/** The Strat ports (functions/domain/strat/ports.ts) on `tables`, each made on first use. */
export function stratPorts({ documents, tableName }: TableContext) {
  /** An event feed in its table, with the once-key guards all feeds share. */
  const eventFeed = <Body>(
    table: 'alerts' | 'breaks',
    definition: ConstructorParameters<typeof DynamoEventFeed>[2],
  ) =>
    new DynamoEventFeed<Body>(
      documents(),
      { feed: tableName(table), guards: tableName('eventGuards') },
      definition,
    );
  return {
    stateStore: memo(() => new DynamoStateStore(documents(), tableName('states'))),
    setupStore: memo(() => new DynamoSetupStore(documents(), tableName('setups'))),
    alertFeed: memo(() => eventFeed<InForceAlertBody>('alerts', IN_FORCE_FEED)),
    breakFeed: memo(() => eventFeed<SimultaneousBreakBody>('breaks', BREAKS_FEED)),
  };
}

export type StratPorts = ReturnType<typeof stratPorts>;

/** The production Strat ports. */
export const { stateStore, setupStore, alertFeed, breakFeed } = stratPorts(AWS_TABLES);

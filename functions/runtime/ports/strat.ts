import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import { DynamoSetupStore, DynamoStateStore } from '#adapters/dynamo/strat-state-stores';
import {
  BREAKS_FEED,
  IN_FORCE_FEED,
  type InForceAlertBody,
  type SimultaneousBreakBody,
} from '#domain/strat/alerts';
import type { EventFeed, SetupStore, StateStore } from '#domain/strat/ports';
import { memo } from '../memo.ts';
import { AWS_TABLES } from './aws-tables.ts';
import type { TableContext } from './context.ts';

/** The Strat ports (functions/domain/strat/ports.ts), each a provider. */
export interface StratPorts {
  readonly stateStore: () => StateStore;
  readonly setupStore: () => SetupStore;
  readonly alertFeed: () => EventFeed<InForceAlertBody>;
  readonly breakFeed: () => EventFeed<SimultaneousBreakBody>;
}

/** The Strat ports on `tables`, each made on first use. */
export function stratPorts({ documents, tableName }: TableContext): StratPorts {
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

/** The production Strat ports. */
export const awsStratPorts = stratPorts(AWS_TABLES);
export const { stateStore, setupStore, alertFeed, breakFeed } = awsStratPorts;

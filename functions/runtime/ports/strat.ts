import { DynamoEventFeed } from '#adapters/dynamo/event-feed';
import { DynamoSetupStore, DynamoStateStore } from '#adapters/dynamo/strat-state-stores';
import {
  BREAKS_FEED,
  IN_FORCE_FEED,
  type InForceAlertBody,
  type SimultaneousBreakBody,
} from '#domain/strat/alerts';
import { documentClient } from '../dynamo.ts';
import { tableName } from '../environment.ts';
import { memo } from '../memo.ts';

/** The production Strat ports (functions/domain/strat/ports.ts), each made on first use. */
export const stateStore = memo(() => new DynamoStateStore(documentClient(), tableName('states')));

export const setupStore = memo(() => new DynamoSetupStore(documentClient(), tableName('setups')));

export const alertFeed = memo(
  () =>
    new DynamoEventFeed<InForceAlertBody>(
      documentClient(),
      { feed: tableName('alerts'), guards: tableName('eventGuards') },
      IN_FORCE_FEED,
    ),
);

export const breakFeed = memo(
  () =>
    new DynamoEventFeed<SimultaneousBreakBody>(
      documentClient(),
      { feed: tableName('breaks'), guards: tableName('eventGuards') },
      BREAKS_FEED,
    ),
);

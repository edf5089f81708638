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

/** An event feed in its table, with the once-key guards all feeds share. */
function eventFeed<Body>(
  table: 'alerts' | 'breaks',
  definition: ConstructorParameters<typeof DynamoEventFeed>[2],
) {
  return new DynamoEventFeed<Body>(
    documentClient(),
    { feed: tableName(table), guards: tableName('eventGuards') },
    definition,
  );
}

export const alertFeed = memo(() => eventFeed<InForceAlertBody>('alerts', IN_FORCE_FEED));

export const breakFeed = memo(() => eventFeed<SimultaneousBreakBody>('breaks', BREAKS_FEED));

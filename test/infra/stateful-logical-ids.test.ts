import { describe, expect, it } from 'vitest';
import { synthServiceStack } from './support/service-stack.ts';
import { resourcesOf } from './support/template.ts';

/**
 * The logical ids of the resources that hold data. CloudFormation replaces a resource whose logical id
 * changes: a refactor that moves or renames a construct would create a new, empty table (the old one
 * retained, orphaned) or a new stream and dead-letter queue. Changing this list must be a decision, with a
 * migration, never a side effect.
 */
const STATEFUL_TYPES = ['AWS::DynamoDB::Table', 'AWS::Kinesis::Stream', 'AWS::SQS::Queue', 'AWS::S3::Bucket'];

const PINNED_LOGICAL_IDS = {
  'AWS::DynamoDB::Table': [
    'Tablesaccounts921A8F0E',
    'TablesalertsE4897418',
    'TablesapiKeys2105EA78',
    'Tablesbars478E6868',
    'Tablesbreaks78924881',
    'TablesconnectionsDC437138',
    // The windowed ingest consumer's lease and shard positions (functions/contracts/ingest-consumer.ts), created
    // whichever ingest is deployed (-c ingest=windows|lambda).
    'TablesconsumerLeases853E9E7C',
    'TableseventGuards26188858',
    'TablesfeedPositions427A0C41',
    'Tablesinstruments5DA94062',
    'TablesledgersF82D9F1A',
    // No `prices` table (Tablesprices3C42C3A8) since the latest price moved into the ledger item: a deploy
    // leaves it retained and unused, for an operator to delete (docs/adr/0023-latest-price-in-the-ledger.md).
    'Tablessetups12DD070D',
    'Tablesstates339CB0AB',
    'TablessubscriptionsEF09C325',
    'TablestradeLogE09606B0',
    'TablesusageC408C147',
  ],
  'AWS::Kinesis::Stream': ['IngestionTradeStreamD658716C'],
  'AWS::SQS::Queue': ['FanOutDeadLetterQueue50A5A359', 'IngestionDeadLetterQueueEB97306D'],
  // The usage rows (docs/storage.md#usage-rows); the console's bucket (-c console=true) holds only its files.
  'AWS::S3::Bucket': ['UsageBucketAFA90A1F'],
};

describe('stateful resources', () => {
  const resources = Object.entries(resourcesOf(synthServiceStack().template));

  it.each(STATEFUL_TYPES)('keep the logical ids of every %s', (type) => {
    const ids = resources.filter(([, resource]) => resource.Type === type).map(([id]) => id);
    expect(ids.sort()).toEqual(PINNED_LOGICAL_IDS[type as keyof typeof PINNED_LOGICAL_IDS]);
  });
});

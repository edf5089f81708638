import type { KinesisStreamBatchResponse, KinesisStreamEvent } from 'aws-lambda';
import { WindowHost } from '#containers/ingest-consumer/window-host';
import type { ShardCheckpoints } from '#use-cases/ingest-windows';

/**
 * Where the local windowed consumer's shard positions go: kept in memory, as the local stream keeps no records
 * to read again after a restart (on AWS they go to the consumer's lease, functions/use-cases/consumer-lease.ts).
 */
export class LocalShardPositions implements ShardCheckpoints {
  readonly positions = new Map<string, string>();

  async save(positions: ReadonlyMap<string, string>): Promise<void> {
    for (const [shardId, sequenceNumber] of positions) this.positions.set(shardId, sequenceNumber);
  }
}

/**
 * The windowed ingest consumer's host (functions/containers/ingest-consumer/window-host.ts) in place of the
 * ingest Lambda's event source mapping (`npm start`, unless `--ingest lambda`): the local trade stream's shards hand
 * their batches to `consume`, which keeps them for the next window.
 */
export class LocalWindowedIngest extends WindowHost {
  /** The trade stream's consumer: a shard's batch, kept for the next window (never failed back). */
  readonly consume = async (event: KinesisStreamEvent): Promise<KinesisStreamBatchResponse> => {
    await this.offer(
      event.Records.map(({ eventID, kinesis }) => ({
        // Lambda's event ids are `shardId:sequenceNumber`.
        shardId: eventID.slice(0, eventID.lastIndexOf(':')),
        partitionKey: kinesis.partitionKey,
        sequenceNumber: kinesis.sequenceNumber,
        data: Buffer.from(kinesis.data, 'base64').toString('utf8'),
      })),
    );
    return { batchItemFailures: [] };
  };
}

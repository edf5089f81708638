import * as z from 'zod/mini';
import { TRADE_DEAD_LETTERS_ENV } from '#contracts/ingestion';
import { AUTH_CACHE_TTL_SECONDS } from '#contracts/runtime-settings';
import { TABLES, type TableId } from '#contracts/tables';
import { USAGE_PLAN_ID_ENV } from '#contracts/throttling';
import { USAGE_DELIVERY } from '#contracts/usage';
import { CALLBACK_URL_ENV } from '#contracts/websocket';
import { memo } from './memo.ts';

/**
 * The functions' configuration, parsed once per Lambda instance; a malformed value fails the first
 * invocation with a message naming the variable. Table names come from `TableDefinition.envVar`.
 */
const environmentSchema = z.object({
  /** The authorizer's in-memory cache of keys and entitlements, in seconds (0: no cache). */
  AUTH_CACHE_TTL_SECONDS: z._default(
    z.coerce.number().check(z.int(), z.minimum(0), z.maximum(300)),
    AUTH_CACHE_TTL_SECONDS,
  ),
  /** The WebSocket stage's `@connections` endpoint; set on the functions that post to connections. */
  [CALLBACK_URL_ENV]: z.optional(z.url()),
  /** The trades dead-letter queue; set on the ingest function. */
  [TRADE_DEAD_LETTERS_ENV]: z.optional(z.url()),
  /** The Firehose delivery stream of the usage rows; set on the fan-out. */
  [USAGE_DELIVERY.streamEnv]: z.optional(z.string().check(z.minLength(1))),
  /** The REST API's usage plan, whose per-key limits the clock tick sets; set on the clock tick. */
  [USAGE_PLAN_ID_ENV]: z.optional(z.string().check(z.minLength(1))),
});

export type Environment = z.infer<typeof environmentSchema>;

export const environment = memo((): Environment => {
  const parsed = environmentSchema.safeParse(process.env);
  if (!parsed.success) throw new Error(`invalid environment: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
});

export function tableName(id: TableId): string {
  const { envVar } = TABLES[id];
  const name = process.env[envVar];
  if (!name) throw new Error(`environment variable ${envVar} (the ${id} table) is not set`);
  return name;
}

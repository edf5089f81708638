/**
 * Where the fan-out's `ws_message` usage rows go (docs/storage.md#usage-rows): a Firehose delivery stream
 * (Direct PUT) into an S3 bucket, one key prefix per UTC day, read by `npm run usage`. The local stack's file
 * sink (scripts/local/usage-files.ts) keeps the same layout under its data folder.
 */
export const USAGE_DELIVERY = {
  /** The fan-out's environment variable naming the delivery stream. */
  streamEnv: 'USAGE_DELIVERY_STREAM',
  /** The objects' prefix, a day per partition, by Firehose's arrival time (UTC). */
  prefix: 'usage/day=!{timestamp:yyyy-MM-dd}/',
  /** What Firehose failed to deliver: apart from the rows, so the report never reads it as rows. */
  errorPrefix: 'usage-errors/!{firehose:error-output-type}/day=!{timestamp:yyyy-MM-dd}/',
  /** Firehose writes an object at most this long after a row arrives (its smallest buffer for S3 is 0). */
  bufferingIntervalSeconds: 60,
  /** ... or once this much is buffered. */
  bufferingSizeMiB: 5,
} as const;

/** The key prefix of a UTC day's rows (`YYYY-MM-DD`): USAGE_DELIVERY.prefix with its day filled in. */
export const usageDayPrefix = (day: string) => `usage/day=${day}/`;

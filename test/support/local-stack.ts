import { type IngestDesign, ingestDesignNamed } from '#contracts/ingest-consumer';
import { type Candles, candlesSchema } from '#domain/market-data/candles';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../../scripts/local/stack.ts';
import { runScript } from './processes.ts';

/**
 * What ingests a test stack's trades: the windowed consumer, or with `LOCAL_STACK_INGEST=lambda` the ingest
 * Lambda's handler (`npm run test:integration-lambda`: the same suite holds both to the same behaviour).
 */
function testIngest(): IngestDesign {
  const named = process.env.LOCAL_STACK_INGEST;
  return ingestDesignNamed(named, `LOCAL_STACK_INGEST=${named}`);
}

/**
 * A local stack for a test file: in memory, on free ports. Each stack hands its handlers its own ports
 * (scripts/local/handlers.ts), so a process may hold several and test files could share one.
 */
export async function startTestStack(options: Partial<LocalStackOptions> = {}): Promise<TestStack> {
  const stack = await startLocalStack({
    port: 0,
    dynamoPort: 0,
    authCacheTtlSeconds: 0,
    ingest: testIngest(),
    ...options,
  });
  return new TestStack(stack);
}

/**
 * A test stack whose service clock reads Friday 2024-11-22 11:00 New York, with test/fixtures/strat-week.csv
 * replayed: the Strat week that test/integration/strat-endpoints.test.ts describes (daily 1-2U setups going
 * in force on Friday, simultaneous breaks of the index futures).
 */
export async function startStratWeekStack(options: Partial<LocalStackOptions> = {}): Promise<TestStack> {
  const local = await startTestStack({
    clock: { start: new Date('2024-11-22T16:00:00Z'), speed: 1 },
    ...options,
  });
  await local.replay('test/fixtures/strat-week.csv');
  return local;
}

export class TestStack {
  constructor(readonly stack: LocalStack) {}

  /** GET a path below the REST base, with the demo key in X-API-Key unless other headers are given. */
  async get(path: string, headers: Record<string, string> = { 'X-API-Key': this.stack.demoKey }) {
    const response = await fetch(`${this.stack.restUrl}${path}`, { headers });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: text ? JSON.parse(text) : undefined,
    };
  }

  /** GET /candles/{symbol}{query} with the demo key: the response checked 200 and parsed with its schema. */
  async candles(symbol: string, query = ''): Promise<Candles> {
    const response = await this.get(`/candles/${symbol}${query}`);
    if (response.status !== 200)
      throw new Error(`GET /candles/${symbol}${query}: ${response.status} ${response.text}`);
    return candlesSchema.parse(response.body);
  }

  /** A raw request, for methods and paths outside the REST base. */
  async request(url: string, init?: RequestInit) {
    const response = await fetch(new URL(url, this.stack.restUrl), init);
    const text = await response.text();
    return { status: response.status, text, body: text ? JSON.parse(text) : undefined };
  }

  /** `npm run replay` of a fixture into this stack, as a separate process; resolves once it is ingested. */
  async replay(file: string): Promise<void> {
    const replay = await runScript('scripts/replay.ts', ['--file', file, '--url', this.stack.restUrl]);
    if (replay.code !== 0) throw new Error(`replay of ${file} failed (${replay.code}): ${replay.stderr}`);
  }

  stop() {
    return this.stack.stop();
  }
}

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { ApiGatewayManagementApiClient } from '@aws-sdk/client-apigatewaymanagementapi';
import { ApiGatewayClientConnections } from '#adapters/api-gateway/client-connections';
import { PooledClientConnections } from '#adapters/api-gateway/pooled-connections';
import { INGEST_CONSUMER_TASKS, QUOTE_POST_WORKER_ENTRY } from '#contracts/ingest-consumer';
import { INGEST_WINDOWS } from '#contracts/ingestion';
import { CALLBACK_URL_ENV } from '#contracts/websocket';
import { Frame, frameOf } from '#domain/streaming/messages';
import type { ClientConnections } from '#domain/streaming/ports';
import { PROJECT_ROOT } from '#lib/project-root';
import { LOCAL_AWS } from '../local/dynamo.ts';
import type { BenchResult } from './types.ts';

/** Posts per turn, and turns per way of posting (alternated). */
const POSTS = 20_000;
const TURNS = 2;

/**
 * What a quote's post costs the windowed consumer's thread (docs/adr/0026-long-running-ingest-consumer.md):
 * PostToConnection through the AWS SDK to an `@connections` stand-in on loopback HTTP (in a process of its
 * own, so its CPU is not counted), INGEST_WINDOWS.postConcurrency posts in flight, made on this thread or
 * handed to INGEST_CONSUMER_TASKS.session.postWorkers worker threads (PooledClientConnections). Reports the
 * posts a second, the time a post keeps this thread's event loop busy (what the consumer's own thread has to
 * spare for), and the process's CPU a post. No TLS: on AWS each post also encrypts.
 */
export async function benchPosts(): Promise<BenchResult[]> {
  const endpoint = await startConnectionsStandIn();
  const frame = frameOf({
    channel: 'quotes',
    symbol: 'AAPL',
    data: { symbol: 'AAPL', price: 191.23, volume: 12_345_678 },
  });
  const client = { region: LOCAL_AWS.region, credentials: LOCAL_AWS } as const;
  const onThisThread = new ApiGatewayClientConnections(
    new ApiGatewayManagementApiClient({ ...client, endpoint: endpoint.url }),
  );
  const pooled = new PooledClientConnections(
    new URL(`${PROJECT_ROOT}/${QUOTE_POST_WORKER_ENTRY}`, 'file://'),
    INGEST_CONSUMER_TASKS.session.postWorkers,
    {
      execArgv: ['--import', 'tsx'],
      env: {
        ...process.env,
        [CALLBACK_URL_ENV]: endpoint.url,
        AWS_REGION: LOCAL_AWS.region,
        AWS_ACCESS_KEY_ID: LOCAL_AWS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LOCAL_AWS.secretAccessKey,
        POWERTOOLS_TRACE_ENABLED: 'false',
      },
    },
  );
  const ways = {
    'one thread': onThisThread,
    [`${INGEST_CONSUMER_TASKS.session.postWorkers} post workers`]: pooled,
  };
  // Warm both: the SDK's first calls load and resolve what later ones reuse.
  for (const connections of Object.values(ways)) await postAll(connections, frame, 2_000);
  const rows: Record<string, number | string>[] = [];
  for (let turn = 1; turn <= TURNS; turn++) {
    for (const [way, connections] of Object.entries(ways)) {
      const cpuBefore = process.cpuUsage();
      const loopBefore = performance.eventLoopUtilization();
      const started = performance.now();
      await postAll(connections, frame, POSTS);
      const seconds = (performance.now() - started) / 1000;
      const { user, system } = process.cpuUsage(cpuBefore);
      const loop = performance.eventLoopUtilization(loopBefore);
      rows.push({
        turn,
        posting: way,
        'posts/s': Math.round(POSTS / seconds),
        // What a post takes of the consumer's own thread: its event loop's busy time.
        'this thread µs/post': Math.round((loop.active * 1000) / POSTS),
        // The process's CPU: this thread's, and with the pool the workers' too.
        'process CPU µs/post': Math.round((user + system) / POSTS),
      });
    }
  }
  await pooled.stop();
  endpoint.stop();
  return [
    {
      name: `PostToConnection through the SDK, ${INGEST_WINDOWS.postConcurrency} in flight, to a loopback @connections stand-in`,
      figures: { posts: POSTS, turns: TURNS, 'frame bytes': frame.bytes.length },
      rows,
    },
  ];
}

async function postAll(connections: ClientConnections, frame: Frame, posts: number): Promise<void> {
  let next = 0;
  const poster = async () => {
    while (next < posts) {
      next += 1;
      await connections.send(`connection-${next % 500}=`, new Frame(frame.json));
    }
  };
  await Promise.all(Array.from({ length: INGEST_WINDOWS.postConcurrency }, poster));
}

/** An `@connections` stand-in answering every post 200, in a child process (its CPU is not this one's). */
async function startConnectionsStandIn(): Promise<{ url: string; stop: () => void }> {
  const server =
    "const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.end()); });" +
    "s.listen(0, '127.0.0.1', () => console.log(s.address().port));";
  const child = spawn(process.execPath, ['-e', server], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  return { url: `http://127.0.0.1:${Number(chunk.toString().trim())}`, stop: () => child.kill() };
}

/**
 * A post worker of the windowed ingest consumer (functions/adapters/api-gateway/pooled-connections.ts): a worker
 * thread of functions/containers/ingest-consumer.ts posting the frames the consumer hands it through its own
 * `@connections` client, at the WebSocket stage's callback URL the CDK gives the task (CALLBACK_URL), with
 * sockets for a window's posts in flight. Bundled beside the consumer's entry in the containers' image
 * (scripts/bundle-feed-connector.ts).
 */
import { parentPort } from 'node:worker_threads';
import { servePosts } from '#adapters/api-gateway/pooled-connections';
import { postWorkerConnections } from '#runtime/ports/client-connections';

if (!parentPort) throw new Error('functions/containers/quote-post-worker.ts runs as a worker thread');
servePosts(parentPort, postWorkerConnections());

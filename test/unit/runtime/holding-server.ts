import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';

/**
 * A loopback HTTP server holding every request until told to answer them all, counting the most it held at
 * once: how many calls a client has in flight.
 */
export async function holdingServer() {
  const held: ServerResponse[] = [];
  let most = 0;
  const server = createServer((request, response) => {
    request.resume();
    held.push(response);
    most = Math.max(most, held.length);
  });
  /** Answers every request held with `body` (JSON, as the AWS JSON protocols expect). */
  const answerAll = (body: string) => {
    for (const response of held.splice(0)) {
      response.setHeader('content-type', 'application/x-amz-json-1.0');
      response.end(body);
    }
  };
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    /**
     * How many of `calls` (made to this server) it held at once: it waits until it holds `expected` of them (or
     * 2 s), then answers everything with `body` until every call is done.
     */
    async inFlight(calls: readonly Promise<unknown>[], expected: number, body: string): Promise<number> {
      for (let waited = 0; waited < 100 && held.length < expected; waited++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const answering = setInterval(() => answerAll(body), 5);
      await Promise.all(calls);
      clearInterval(answering);
      return most;
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

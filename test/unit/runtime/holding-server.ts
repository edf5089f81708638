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
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    most: () => most,
    held: () => held.length,
    /** Answers every request held with `body` (JSON, as the AWS JSON protocols expect). */
    answerAll: (body: string) => {
      for (const response of held.splice(0)) {
        response.setHeader('content-type', 'application/x-amz-json-1.0');
        response.end(body);
      }
    },
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

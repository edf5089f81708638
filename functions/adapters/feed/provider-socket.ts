import WebSocket from 'ws';
import { type FeedConnection, FeedError, type FeedEvent, type FeedListener } from '#domain/feed/ports';

/** One element of a provider's message array (both providers send JSON arrays of objects). */
export type ProviderMessage = Record<string, unknown>;

/** How long a handshake (connected, auth, subscribe) may take before the connection is given up. */
export const HANDSHAKE_TIMEOUT_MS = 15_000;

/**
 * Dead sockets (docs/data-sources.md#dead-sockets): once open, a WebSocket ping goes out every
 * PING_INTERVAL_MS, and a socket from which no frame at all (pong, data, ping) arrived for DEAD_AFTER_MS is
 * terminated, without waiting for a close handshake the peer will never answer: a half-open connection is
 * noticed 10 to 15 s after it went quiet. A WebSocket endpoint answers a ping with a pong as the protocol
 * requires (RFC 6455), so a live but quiet provider is never taken for dead. A `close()` whose handshake has not completed after CLOSE_TIMEOUT_MS is terminated as well (the ws
 * library would otherwise wait 30 s).
 */
export const PING_INTERVAL_MS = 5_000;
export const DEAD_AFTER_MS = 10_000;
export const CLOSE_TIMEOUT_MS = 2_000;

export interface ProviderSocketOptions {
  readonly headers?: Record<string, string>;
  readonly handshakeTimeoutMs?: number;
  readonly pingIntervalMs?: number;
  readonly deadAfterMs?: number;
  readonly closeTimeoutMs?: number;
}

export interface ProviderProtocol {
  /**
   * One message during the handshake: `send` answers it; returns 'subscribed' when the handshake is done,
   * a FeedError to refuse, undefined to wait for the next.
   */
  handshake(message: ProviderMessage, send: (payload: object) => void): 'subscribed' | FeedError | undefined;
  /**
   * One message once subscribed: an event, a FeedError (the provider ends the connection), 'invalid' (a
   * trade that fails validation: counted), or nothing (a message of no interest).
   */
  stream(message: ProviderMessage): FeedEvent | FeedError | 'invalid' | undefined;
}

function elementsOf(data: WebSocket.RawData): ProviderMessage[] | undefined {
  try {
    const value: unknown = JSON.parse(data.toString());
    const list = Array.isArray(value) ? value : [value];
    return list.every((item) => typeof item === 'object' && item !== null)
      ? (list as ProviderMessage[])
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Opens a provider's WebSocket, runs its handshake and then hands each message's events to `listener`, in
 * order. Resolves once subscribed; rejects with the provider's refusal (a FeedError) or a protocol error
 * when the socket closes or the handshake times out first. A frame that is not a JSON array of objects is
 * counted (`malformed`), never thrown.
 */
export function openProviderSocket(
  url: string,
  protocol: ProviderProtocol,
  listener: FeedListener,
  options: ProviderSocketOptions = {},
): Promise<FeedConnection> {
  const handshakeTimeoutMs = options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS;
  const pingIntervalMs = options.pingIntervalMs ?? PING_INTERVAL_MS;
  const deadAfterMs = options.deadAfterMs ?? DEAD_AFTER_MS;
  const closeTimeoutMs = options.closeTimeoutMs ?? CLOSE_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: options.headers, handshakeTimeout: handshakeTimeoutMs });
    let subscribed = false;
    let closeError: FeedError | undefined;
    let lastFrameAtMs = Date.now();
    let paused = false;
    let liveness: NodeJS.Timeout | undefined;
    let closing: NodeJS.Timeout | undefined;
    const heard = () => {
      lastFrameAtMs = Date.now();
    };
    const send = (payload: object) => socket.send(JSON.stringify(payload));
    /** A close handshake, cut short by terminate() when the peer does not answer it in time. */
    const closeSocket = () => {
      if (closing !== undefined || socket.readyState === WebSocket.CLOSED) return;
      closing = setTimeout(() => socket.terminate(), closeTimeoutMs);
      socket.close();
    };
    const fail = (error: FeedError) => {
      closeError ??= error;
      closeSocket();
    };
    /** Each ping interval: a socket silent past the deadline is terminated, otherwise pinged. */
    const checkLiveness = () => {
      // A paused socket is not read, so its pongs go unheard: its silence proves nothing.
      if (paused) heard();
      const silentMs = Date.now() - lastFrameAtMs;
      if (silentMs >= deadAfterMs) {
        closeError ??= new FeedError(
          'protocol',
          `no frame from the provider for ${silentMs} ms (pings unanswered): socket terminated`,
        );
        socket.terminate();
        return;
      }
      socket.ping();
    };
    const timer = setTimeout(
      () => fail(new FeedError('protocol', 'handshake timed out')),
      handshakeTimeoutMs,
    );
    const connection: FeedConnection = {
      close: closeSocket,
      pause: () => {
        paused = true;
        socket.pause();
      },
      resume: () => {
        paused = false;
        heard();
        socket.resume();
      },
    };

    socket.on('open', () => {
      heard();
      liveness = setInterval(checkLiveness, pingIntervalMs);
    });
    socket.on('pong', heard);
    socket.on('ping', heard);
    socket.on('message', (data) => {
      heard();
      const messages = elementsOf(data);
      if (messages === undefined) {
        listener.onDropped('malformed', 1);
        return;
      }
      let first = 0;
      while (!subscribed && first < messages.length) {
        const step = protocol.handshake(messages[first] as ProviderMessage, send);
        first++;
        if (step instanceof FeedError) return fail(step);
        if (step === 'subscribed') {
          subscribed = true;
          clearTimeout(timer);
          resolve(connection);
        }
      }
      const events: FeedEvent[] = [];
      let invalid = 0;
      for (const message of messages.slice(first)) {
        const outcome = protocol.stream(message);
        if (outcome instanceof FeedError) fail(outcome);
        else if (outcome === 'invalid') invalid++;
        else if (outcome !== undefined) events.push(outcome);
      }
      if (invalid > 0) listener.onDropped('invalid', invalid);
      if (events.length > 0) listener.onEvents(events);
    });
    socket.on('error', (error) => {
      closeError ??= new FeedError('protocol', `socket error: ${error.message}`);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      clearTimeout(closing);
      clearInterval(liveness);
      if (!subscribed) {
        reject(closeError ?? new FeedError('protocol', 'closed before the subscription was acknowledged'));
        return;
      }
      listener.onClose(closeError);
    });
  });
}

import WebSocket from 'ws';
import { type FeedConnection, FeedError, type FeedEvent, type FeedListener } from '#domain/feed/ports';

/** One element of a provider's message array (both providers send JSON arrays of objects). */
export type ProviderMessage = Record<string, unknown>;

/** How long a handshake (connected, auth, subscribe) may take before the connection is given up. */
export const HANDSHAKE_TIMEOUT_MS = 15_000;

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
  options: { headers?: Record<string, string>; handshakeTimeoutMs?: number } = {},
): Promise<FeedConnection> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers: options.headers, handshakeTimeout: HANDSHAKE_TIMEOUT_MS });
    let subscribed = false;
    let closeError: FeedError | undefined;
    const send = (payload: object) => socket.send(JSON.stringify(payload));
    const fail = (error: FeedError) => {
      closeError ??= error;
      socket.close();
    };
    const timer = setTimeout(
      () => fail(new FeedError('protocol', 'handshake timed out')),
      options.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS,
    );
    const connection: FeedConnection = {
      close: () => socket.close(),
      pause: () => socket.pause(),
      resume: () => socket.resume(),
    };

    socket.on('message', (data) => {
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
      if (!subscribed) {
        reject(closeError ?? new FeedError('protocol', 'closed before the subscription was acknowledged'));
        return;
      }
      listener.onClose(closeError);
    });
  });
}

/** Unix ms of an RFC 3339 timestamp (nanosecond digits truncated), or NaN. */
export function epochMsOf(rfc3339: unknown): number {
  if (typeof rfc3339 !== 'string') return Number.NaN;
  const match = /^(.*T\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$/.exec(rfc3339);
  if (match === null) return Number.NaN;
  const fraction = (match[2] ?? '').slice(0, 4);
  return Date.parse(`${match[1]}${fraction}${match[3]}`);
}

/** A small typed event emitter (no Node imports: the client runs in browsers too). */
export class Emitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  on<Name extends keyof Events>(name: Name, listener: (payload: Events[Name]) => void): () => void {
    const set = this.listeners.get(name) ?? new Set();
    set.add(listener as (payload: never) => void);
    this.listeners.set(name, set);
    return () => set.delete(listener as (payload: never) => void);
  }

  /** Calls each listener; one that throws is reported to `onListenerError` and the others still run. */
  emit<Name extends keyof Events>(
    name: Name,
    payload: Events[Name],
    onListenerError?: (error: unknown) => void,
  ) {
    for (const listener of [...(this.listeners.get(name) ?? [])]) {
      try {
        (listener as (payload: Events[Name]) => void)(payload);
      } catch (error) {
        onListenerError?.(error);
      }
    }
  }
}

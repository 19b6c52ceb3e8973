// `never[]`: each event has its own listener signature, and any function type is assignable to this one.
type EventMap<Events> = { [K in keyof Events]: (...args: never[]) => void };

/** Typed listeners by event name: what AiChatClient.on() registers. */
export class ListenerSet<Events extends EventMap<Events>> {
  private readonly listeners = new Map<keyof Events, Set<Events[keyof Events]>>();

  /** Adds a listener; returns the function that removes it. */
  on<K extends keyof Events>(event: K, listener: Events[K]): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  emit<K extends keyof Events>(event: K, ...args: Parameters<Events[K]>): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) listener(...args);
  }
}

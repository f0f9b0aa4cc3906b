/** A subscription that can be ended. */
export interface Disposable {
  dispose(): void;
}

/** A subscribable event, VS Code style: call it with a listener, dispose the result to unsubscribe. */
export type Event<T> = (listener: (event: T) => void) => Disposable;

/**
 * A minimal event emitter. A throwing listener is isolated: it neither stops
 * the other listeners nor reaches the code that fired the event.
 */
export class Emitter<T> {
  private readonly listeners = new Set<(event: T) => void>();

  /** The public side: subscribe to the events this emitter fires. */
  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  /** Delivers an event to every current listener. */
  fire(event: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's bug must not break supervision.
      }
    }
  }
}

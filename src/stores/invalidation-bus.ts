import { EventEmitter } from 'node:events';

/**
 * What changed, so every replica drops its cached copy within a second. `resync` never travels: a
 * bus emits it to its own listeners when its delivery was cut or resumes, since messages published
 * meanwhile are lost, so every cached copy is to be dropped.
 */
export type InvalidationMessage =
  | { type: 'account'; accountId: string }
  | { type: 'key'; keyHash: string }
  | { type: 'config' }
  | { type: 'resync' };

export type InvalidationListener = (msg: InvalidationMessage) => void;

/**
 * Fan-out of cache invalidations to every gateway replica, the publisher's own included.
 * Delivery is best effort (pub/sub keeps nothing for a replica that is disconnected), so caches
 * must also expire on their own TTL.
 */
export interface InvalidationBus {
  publish(msg: InvalidationMessage): Promise<void>;
  /** Returns the unsubscribe function. A listener that throws does not stop the others. */
  subscribe(fn: InvalidationListener): () => void;
  /** Whether messages published now reach this instance (false while its connection is down). */
  live(): boolean;
  close(): Promise<void>;
}

/** Narrows an untrusted value (a Redis payload) to a message, or null. */
export function parseInvalidation(value: unknown): InvalidationMessage | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  if (v.type === 'config') return { type: 'config' };
  if (v.type === 'account' && typeof v.accountId === 'string')
    return { type: 'account', accountId: v.accountId };
  if (v.type === 'key' && typeof v.keyHash === 'string') return { type: 'key', keyHash: v.keyHash };
  return null;
}

/** Calls each listener, isolating their failures from each other and from the transport. */
export class ListenerSet {
  private readonly listeners = new Set<InvalidationListener>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => undefined) {}

  add(fn: InvalidationListener): () => void {
    // A wrapper per subscription, so the same function subscribed twice is two subscriptions.
    const entry: InvalidationListener = (msg) => fn(msg);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  emit(msg: InvalidationMessage): void {
    for (const fn of this.listeners) {
      try {
        fn(msg);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  clear(): void {
    this.listeners.clear();
  }
}

const CHANNEL = 'invalidate';

/**
 * In-process bus for the embedded single-process mode. Buses built on the same hub see each
 * other's messages (that is how tests stand in for two replicas).
 */
export class InProcessInvalidationBus implements InvalidationBus {
  private readonly listeners: ListenerSet;
  private readonly onHub = (msg: InvalidationMessage): void => this.listeners.emit(msg);
  private closed = false;

  constructor(
    private readonly hub: EventEmitter = new EventEmitter(),
    onListenerError?: (err: unknown) => void,
  ) {
    this.listeners = new ListenerSet(onListenerError);
    hub.setMaxListeners(0);
    hub.on(CHANNEL, this.onHub);
  }

  publish(msg: InvalidationMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('invalidation bus closed'));
    // Asynchronous like the Redis bus: a publisher never runs listeners inside its own call stack.
    setImmediate(() => this.hub.emit(CHANNEL, msg));
    return Promise.resolve();
  }

  subscribe(fn: InvalidationListener): () => void {
    return this.listeners.add(fn);
  }

  live(): boolean {
    return !this.closed;
  }

  close(): Promise<void> {
    this.closed = true;
    this.hub.off(CHANNEL, this.onHub);
    this.listeners.clear();
    return Promise.resolve();
  }
}

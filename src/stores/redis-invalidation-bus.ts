import { Cluster } from 'ioredis';
import type { Redis } from 'ioredis';
import type { RedisClient } from './redis-client';
import { withDeadline } from '../util/deadline-queue';
import type { DeadlineQueue } from '../util/deadline-queue';
import type { InvalidationBus, InvalidationListener, InvalidationMessage } from './invalidation-bus';
import { ListenerSet, parseInvalidation } from './invalidation-bus';

export interface RedisInvalidationBusOptions {
  /** Used for PUBLISH; shared with other stores and owned by the caller. */
  publisher: RedisClient;
  /** Channel name, e.g. 'lk:invalidate'; replicas of one deployment must agree on it. */
  channel?: string;
  /** Malformed payloads and throwing listeners: the gateway logs them. */
  onError?: (err: unknown) => void;
  /** A PUBLISH not acknowledged by its deadline fails (for a publisher without a command timeout). */
  deadlines?: DeadlineQueue;
}

/**
 * Redis pub/sub bus. A connection in subscriber mode can run nothing else, so the bus owns a
 * dedicated duplicate of the publisher's connection. It keeps an offline queue (SUBSCRIBE may be
 * sent before the first connect) and ioredis re-issues SUBSCRIBE after every reconnect.
 */
export class RedisInvalidationBus implements InvalidationBus {
  private readonly subscriber: RedisClient;
  private readonly listeners: ListenerSet;
  private readonly channel: string;
  private readonly subscribed: Promise<unknown>;

  constructor(private readonly opts: RedisInvalidationBusOptions) {
    const onError = opts.onError ?? (() => undefined);
    this.channel = opts.channel ?? 'lk:invalidate';
    this.listeners = new ListenerSet(onError);
    const subscriberOptions = {
      autoResubscribe: true,
      maxRetriesPerRequest: null,
      commandTimeout: undefined,
    };
    const publisher = opts.publisher;
    // A cluster delivers PUBLISH to every node, so a subscriber on any one of them hears it.
    this.subscriber =
      publisher instanceof Cluster
        ? publisher.duplicate(undefined, {
            enableOfflineQueue: true,
            redisOptions: { ...publisher.options.redisOptions, ...subscriberOptions },
          })
        : publisher.duplicate({ ...subscriberOptions, enableOfflineQueue: true });
    this.subscriber.on('error', onError);
    this.subscriber.on('message', (channel: string, payload: string) => {
      if (channel !== this.channel) return;
      let msg: InvalidationMessage | null = null;
      try {
        msg = parseInvalidation(JSON.parse(payload));
      } catch {
        // reported below as malformed
      }
      if (msg) this.listeners.emit(msg);
      else onError(new Error(`malformed invalidation message on ${channel}`));
    });
    // Kept, not awaited here: ready() exposes it, and a failure must not be an unhandled rejection.
    this.subscribed = this.subscriber.subscribe(this.channel);
    this.subscribed.catch(onError);
  }

  /** Resolves once the first SUBSCRIBE is acknowledged (messages published before are not seen). */
  async ready(): Promise<void> {
    await this.subscribed;
  }

  async publish(msg: InvalidationMessage): Promise<void> {
    const sent = publishingNode(this.opts.publisher).publish(this.channel, JSON.stringify(msg));
    const d = this.opts.deadlines;
    await (d ? withDeadline(d, sent, 'publish timed out') : sent);
  }

  subscribe(fn: InvalidationListener): () => void {
    return this.listeners.add(fn);
  }

  /** Closes the subscriber connection it owns; the publisher stays the caller's. */
  async close(): Promise<void> {
    this.listeners.clear();
    this.subscriber.removeAllListeners('message');
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}

/**
 * A cluster sends a keyless PUBLISH to any node and carries it to the others over its bus, so two
 * messages published through different nodes may arrive out of order. One replica's messages go
 * through one node (the first primary by address, while it is there) and keep their order.
 */
function publishingNode(client: RedisClient): RedisClient {
  if (!(client instanceof Cluster)) return client;
  let first: Redis | undefined;
  let firstKey = '';
  for (const node of client.nodes('master')) {
    const key = `${node.options.host ?? ''}:${node.options.port ?? 0}`;
    if (first === undefined || key < firstKey) [first, firstKey] = [node, key];
  }
  return first ?? client;
}

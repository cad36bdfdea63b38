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

/** The first wait before asking again for a SUBSCRIBE the server refused; it doubles up to the max. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/**
 * Redis pub/sub bus. A connection in subscriber mode can run nothing else, so the bus owns a
 * dedicated duplicate of the publisher's connection, and subscribes it again after every
 * reconnect itself: ioredis' own re-subscribe (autoResubscribe) leaves a SUBSCRIBE that is refused
 * or cut off by another drop as an unhandled rejection, which ends the process (fixed upstream in
 * ioredis#2187, in no release yet). A cluster's subscriber node re-subscribes on its own and
 * handles its failures, so there the bus subscribes once.
 */
export class RedisInvalidationBus implements InvalidationBus {
  private readonly subscriber: RedisClient;
  private readonly listeners: ListenerSet;
  private readonly channel: string;
  private readonly onError: (err: unknown) => void;
  private readonly subscribed: Promise<void>;
  private acknowledged: () => void = () => undefined;
  private retryMs = RETRY_FIRST_MS;
  /** Subscribed on a connection that is up; and whether a SUBSCRIBE was ever acknowledged. */
  private listening = false;
  private everListened = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly opts: RedisInvalidationBusOptions) {
    this.onError = opts.onError ?? (() => undefined);
    this.channel = opts.channel ?? 'lk:invalidate';
    this.listeners = new ListenerSet(this.onError);
    const subscriberOptions = {
      autoResubscribe: false,
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
    this.subscriber.on('error', this.onError);
    this.subscriber.on('message', (channel: string, payload: string) => {
      if (channel !== this.channel) return;
      let msg: InvalidationMessage | null = null;
      try {
        msg = parseInvalidation(JSON.parse(payload));
      } catch {
        // reported below as malformed
      }
      if (msg) this.listeners.emit(msg);
      else this.onError(new Error(`malformed invalidation message on ${channel}`));
    });
    this.subscribed = new Promise((resolve) => {
      this.acknowledged = resolve;
    });
    if (this.subscriber instanceof Cluster) {
      this.listen();
    } else {
      this.subscriber.on('ready', () => this.listen());
      // Messages published while the connection is down are lost: listeners drop what they cached.
      this.subscriber.on('close', () => {
        if (!this.listening) return;
        this.listening = false;
        this.listeners.emit({ type: 'resync' });
      });
      if (this.subscriber.status === 'wait') this.subscriber.connect().catch(() => undefined);
    }
  }

  /** Resolves once a SUBSCRIBE is first acknowledged (messages published before are not seen). */
  async ready(): Promise<void> {
    await this.subscribed;
  }

  async publish(msg: InvalidationMessage): Promise<void> {
    try {
      const sent = publishingNode(this.opts.publisher).publish(this.channel, JSON.stringify(msg));
      const d = this.opts.deadlines;
      await (d ? withDeadline(d, sent, 'publish timed out') : sent);
    } catch (err) {
      // Not sent: this replica at least applies it now (its own copy would have come back by Redis).
      this.listeners.emit(msg);
      throw err;
    }
  }

  subscribe(fn: InvalidationListener): () => void {
    return this.listeners.add(fn);
  }

  /** A cluster's subscriber re-subscribes on its own, so there this says only whether it was once. */
  live(): boolean {
    return !this.closed && (this.subscriber instanceof Cluster ? this.everListened : this.listening);
  }

  /** Closes the subscriber connection it owns; the publisher stays the caller's. */
  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    clearTimeout(this.retryTimer);
    this.listeners.clear();
    this.subscriber.removeAllListeners('message');
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }

  /**
   * SUBSCRIBE, every failure handled. One refused on a live connection (an ACL without the
   * channel, say) is asked again after a growing wait; after a drop, the next 'ready' asks.
   */
  private listen(): void {
    if (this.closed) return;
    clearTimeout(this.retryTimer);
    this.subscriber.subscribe(this.channel).then(
      () => {
        this.retryMs = RETRY_FIRST_MS;
        this.listening = true;
        // Listening again after a drop: what was published in between is lost.
        if (this.everListened) this.listeners.emit({ type: 'resync' });
        this.everListened = true;
        this.acknowledged();
      },
      (err: unknown) => {
        if (this.closed) return;
        this.onError(err);
        this.retryTimer = setTimeout(() => {
          const sub = this.subscriber;
          if (sub instanceof Cluster || sub.status === 'ready') this.listen();
        }, this.retryMs).unref();
        this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2);
      },
    );
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

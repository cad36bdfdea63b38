import { Cluster, Redis } from 'ioredis';
import type { RedisClient } from './redis-client';
import { withDeadline } from '../util/deadline-queue';
import { createRetryKeeper } from '../util/retry-keeper';
import type { RetryKeeper } from '../util/retry-keeper';
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
  /**
   * How long a message that could not be published is sent again: past it every replica's cache
   * has dropped the entry anyway (the key cache's TTL). Default 300 s.
   */
  republishForMs?: number;
  /** A message given up unpublished (the process stopping, or past republishForMs); default onError. */
  onUnpublished?: (msg: InvalidationMessage, cause: unknown) => void;
}

/** A message not published is sent again after this, then twice as long each time, up to the max. */
const REPUBLISH_FIRST_MS = 200;
const REPUBLISH_MAX_MS = 5_000;

/** The first wait before asking again for a SUBSCRIBE the server refused; it doubles up to the max. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/** A cluster node the subscriber could not reach this many times in a row is left for another. */
const NODE_ATTEMPTS = 3;

/** How long close() waits for QUIT to be answered before it drops the connection. */
const QUIT_WAIT_MS = 1_000;

/** A node's address as the bus compares them. */
const nodeKey = (node: { options: { host?: string; port?: number } }): string =>
  `${node.options.host ?? '127.0.0.1'}:${node.options.port ?? 6379}`;

/** Options of the bus's own subscriber connection. */
const SUBSCRIBER_OPTIONS = {
  autoResubscribe: false,
  maxRetriesPerRequest: null,
  commandTimeout: undefined,
  enableOfflineQueue: true,
};

/**
 * Redis pub/sub bus. A connection in subscriber mode can run nothing else, so the bus owns a
 * dedicated connection, and subscribes it again after every reconnect itself: ioredis' own
 * re-subscribe (autoResubscribe) leaves a SUBSCRIBE that is refused or cut off by another drop as
 * an unhandled rejection, which ends the process (fixed upstream in ioredis#2187, in no release
 * yet). Whatever is published while that connection is down is lost, so its every drop tells the
 * listeners to drop what they cached.
 *
 * On a cluster the connection goes to one node (a cluster carries a keyless PUBLISH to every
 * node), and to the next when that one stays unreachable: not ioredis' cluster subscriber, which
 * moves to another node without a word, so messages lost in the move went unnoticed and a revoked
 * key stayed cached for the whole TTL.
 */
export class RedisInvalidationBus implements InvalidationBus {
  private subscriber: Redis | undefined;
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
  /** The cluster node subscribed through last (host:port). */
  private lastNode = '';
  /** Undoes what the bus hooked on the caller's cluster client. */
  private unhook: () => void = () => undefined;
  /**
   * Messages this replica could not publish: the others would keep what they cached (a revoked
   * key, an old plan) until their TTL, their own subscriptions being fine. Sent again until they go.
   */
  private readonly unsent: RetryKeeper<InvalidationMessage>;

  constructor(private readonly opts: RedisInvalidationBusOptions) {
    this.onError = opts.onError ?? (() => undefined);
    this.channel = opts.channel ?? 'lk:invalidate';
    this.listeners = new ListenerSet(this.onError);
    this.subscribed = new Promise((resolve) => {
      this.acknowledged = resolve;
    });
    this.unsent = createRetryKeeper({
      key: (msg) => JSON.stringify(msg),
      run: (msg) => this.send(msg),
      transient: () => true,
      onLost:
        opts.onUnpublished ??
        ((msg, cause) =>
          this.onError(new Error(`invalidation ${JSON.stringify(msg)} not published: ${String(cause)}`))),
      firstDelayMs: REPUBLISH_FIRST_MS,
      maxDelayMs: REPUBLISH_MAX_MS,
      maxAgeMs: opts.republishForMs ?? 300_000,
    });
    const publisher = opts.publisher;
    if (publisher instanceof Cluster) {
      // A node the cluster client dropped from its topology (removed, reset) may stay up and keep
      // the connection, yet no longer hear the cluster's messages: leave it.
      const onNodeGone = (node: Redis): void => {
        if (nodeKey(node) === this.lastNode) this.subscriber?.disconnect();
      };
      publisher.on('-node', onNodeGone);
      this.unhook = () => publisher.off('-node', onNodeGone);
      this.subscribeThroughNode(publisher);
    } else this.attach(publisher.duplicate(SUBSCRIBER_OPTIONS));
  }

  private readonly onMessage = (channel: string, payload: string): void => {
    if (channel !== this.channel) return;
    let msg: InvalidationMessage | null = null;
    try {
      msg = parseInvalidation(JSON.parse(payload));
    } catch {
      // reported below as malformed
    }
    if (msg) this.listeners.emit(msg);
    else this.onError(new Error(`malformed invalidation message on ${channel}`));
  };

  private attach(sub: Redis): void {
    this.subscriber = sub;
    sub.on('error', this.onError);
    sub.on('message', this.onMessage);
    sub.on('ready', () => this.listen());
    // Messages published while the connection is down are lost: listeners drop what they cached.
    sub.on('close', () => {
      if (!this.listening) return;
      this.listening = false;
      this.listeners.emit({ type: 'resync' });
    });
    if (sub.status === 'wait') sub.connect().catch(() => undefined);
  }

  /**
   * Subscribes through a cluster node: first one at random (replicas spread over the nodes, so one
   * node's restart does not empty every replica's key cache at once), then, when it stays
   * unreachable or leaves, the next by address.
   */
  private subscribeThroughNode(cluster: Cluster): void {
    if (this.closed) return;
    const nodes = cluster.nodes('all').sort((a, b) => (nodeKey(a) < nodeKey(b) ? -1 : 1));
    const node =
      this.lastNode === ''
        ? nodes[Math.floor(Math.random() * nodes.length)]
        : (nodes.find((n) => nodeKey(n) > this.lastNode) ?? nodes[0]);
    if (!node) {
      // The cluster client has not met its nodes yet.
      this.retryTimer = setTimeout(() => this.subscribeThroughNode(cluster), 200).unref();
      return;
    }
    this.lastNode = nodeKey(node);
    // The cluster client's node connections always carry their address.
    const sub = new Redis({
      ...cluster.options.redisOptions,
      host: node.options.host,
      port: node.options.port,
      ...SUBSCRIBER_OPTIONS,
      lazyConnect: true,
      retryStrategy: (times) => (times >= NODE_ATTEMPTS ? null : Math.min(1000, 100 * 2 ** times)),
    });
    // No more retries on this node ('end'): the next one.
    sub.once('end', () => this.subscribeThroughNode(cluster));
    this.attach(sub);
  }

  /** Resolves once a SUBSCRIBE is first acknowledged (messages published before are not seen). */
  async ready(): Promise<void> {
    await this.subscribed;
  }

  /** Rejects when the message could not be published now; it is then sent again until it goes. */
  async publish(msg: InvalidationMessage): Promise<void> {
    try {
      await this.send(msg);
    } catch (err) {
      // Not sent: this replica at least applies it now (its own copy would have come back by Redis).
      this.listeners.emit(msg);
      if (!this.closed) this.unsent.keep(msg, err);
      throw err;
    }
  }

  /** Messages not yet published, waiting to be sent again. */
  unpublished(): number {
    return this.unsent.size();
  }

  private async send(msg: InvalidationMessage): Promise<void> {
    const sent = publishingNode(this.opts.publisher).publish(this.channel, JSON.stringify(msg));
    const d = this.opts.deadlines;
    await (d ? withDeadline(d, sent, 'publish timed out') : sent);
  }

  subscribe(fn: InvalidationListener): () => void {
    return this.listeners.add(fn);
  }

  /** Subscribed on a connection that is up: no message can have been missed since the last resync. */
  live(): boolean {
    return !this.closed && this.listening;
  }

  /** Closes the subscriber connection it owns; the publisher stays the caller's. */
  async close(): Promise<void> {
    // One last try for what is unsent, before the publisher (the caller's) goes.
    await this.unsent.close();
    this.closed = true;
    this.listening = false;
    clearTimeout(this.retryTimer);
    this.listeners.clear();
    this.unhook();
    const sub = this.subscriber;
    if (!sub) return;
    sub.removeAllListeners('message');
    // A node that holds the connection but answers nothing would hold QUIT, and the shutdown, for good.
    const giveUp = setTimeout(() => sub.disconnect(), QUIT_WAIT_MS);
    await sub.quit().catch(() => sub.disconnect());
    clearTimeout(giveUp);
  }

  /**
   * SUBSCRIBE, every failure handled. One refused on a live connection (an ACL without the
   * channel, say) is asked again after a growing wait; after a drop, the next 'ready' asks.
   */
  private listen(): void {
    const sub = this.subscriber;
    if (this.closed || !sub) return;
    clearTimeout(this.retryTimer);
    sub.subscribe(this.channel).then(
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
          if (this.subscriber === sub && sub.status === 'ready') this.listen();
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

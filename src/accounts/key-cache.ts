import type { Clock } from '../util/clock';
import type { AccountRepo } from './account-repo';
import type { Account, ApiKeyRecord } from './account-types';
import { hashesEqual } from './api-keys';

export interface KeyEntry {
  key: ApiKeyRecord;
  account: Account;
  keyHash: string;
}

export interface KeyCacheOptions {
  ttlMs: number;
  negativeTtlMs: number;
  maxEntries: number;
  /**
   * Whether invalidations reach this cache now (the bus is connected). While they do not, an entry
   * is kept at most UNCONFIRMED_TTL_MS, so a revocation or a plan change made meanwhile on another
   * replica still takes effect here within DESIGN's second.
   */
  invalidationsLive?: () => boolean;
}

const UNCONFIRMED_TTL_MS = 1000;
/** Reads of a key begun again because an invalidation came while they were on their way. */
const MAX_REREADS = 3;

export interface KeyCacheStats {
  hits: number;
  misses: number;
}

/**
 * In-process cache of key → account so the hot path never touches the database. Entries are dropped
 * by invalidation messages (plan, verification, lock, revocation) and by TTL as a safety net; while
 * the messages cannot arrive, by a TTL of a second.
 */
export class KeyCache {
  private readonly entries = new Map<string, { entry: KeyEntry; until: number }>();
  private readonly negative = new Map<string, number>();
  private readonly byAccount = new Map<string, Set<string>>();
  private readonly inflight = new Map<string, Promise<KeyEntry | undefined>>();
  /** Counts invalidations, so that a read begun before one is not stored as if it came after. */
  private generation = 0;
  readonly stats: KeyCacheStats = { hits: 0, misses: 0 };

  constructor(
    private readonly repo: Pick<AccountRepo, 'findByKeyHash'>,
    private readonly clock: Clock,
    private readonly opts: KeyCacheOptions,
    private readonly onLookup: (hit: boolean) => void = () => undefined,
  ) {}

  /** The cached answer, without waiting: the entry, null for a key known not to exist, undefined if not cached. */
  peek(keyHash: string): KeyEntry | null | undefined {
    const now = this.clock.now();
    const hit = this.entries.get(keyHash);
    if (hit && hit.until > now) {
      this.stats.hits++;
      this.onLookup(true);
      return hit.entry;
    }
    const neg = this.negative.get(keyHash);
    if (neg !== undefined && neg > now) {
      this.stats.hits++;
      this.onLookup(true);
      return null;
    }
    return undefined;
  }

  async get(keyHash: string): Promise<KeyEntry | undefined> {
    const cached = this.peek(keyHash);
    if (cached !== undefined) return cached ?? undefined;
    this.stats.misses++;
    this.onLookup(false);
    // Concurrent misses for one key share a single query.
    let p = this.inflight.get(keyHash);
    if (!p) {
      p = this.load(keyHash).finally(() => this.inflight.delete(keyHash));
      this.inflight.set(keyHash, p);
    }
    return p;
  }

  /**
   * Reads the key and stores the answer. An invalidation that comes while the read is on its way
   * finds nothing to drop, and the read may predate the change it announces (a revocation, a lock):
   * stored, it would be served until the TTL, minutes after every other replica refuses the key. So
   * such a read is begun again; if invalidations keep coming, the last answer is kept a second only.
   */
  private async load(keyHash: string): Promise<KeyEntry | undefined> {
    let began = this.generation;
    let found = await this.repo.findByKeyHash(keyHash);
    for (let i = 0; i < MAX_REREADS && this.generation !== began; i++) {
      began = this.generation;
      found = await this.repo.findByKeyHash(keyHash);
    }
    const settled = this.generation === began;
    const now = this.clock.now();
    if (!found || !hashesEqual(found.key_hash, keyHash)) {
      if (this.opts.negativeTtlMs > 0 && settled)
        this.remember(this.negative, keyHash, now + this.opts.negativeTtlMs);
      return undefined;
    }
    const entry: KeyEntry = { key: found.key, account: found.account, keyHash };
    const live = settled && (this.opts.invalidationsLive?.() ?? true);
    const ttl = live ? this.opts.ttlMs : Math.min(this.opts.ttlMs, UNCONFIRMED_TTL_MS);
    this.remember(this.entries, keyHash, { entry, until: now + ttl });
    let set = this.byAccount.get(entry.account.id);
    if (!set) this.byAccount.set(entry.account.id, (set = new Set()));
    set.add(keyHash);
    return entry;
  }

  /** Bounded maps: the oldest insertion goes first when full. */
  private remember<V>(map: Map<string, V>, k: string, v: V): void {
    if (map.size >= this.opts.maxEntries) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
    map.delete(k);
    map.set(k, v);
  }

  invalidateKey(keyHash: string): void {
    this.generation++;
    this.entries.delete(keyHash);
    this.negative.delete(keyHash);
  }

  invalidateAccount(accountId: string): void {
    this.generation++;
    for (const h of this.byAccount.get(accountId) ?? []) this.entries.delete(h);
    this.byAccount.delete(accountId);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
    this.negative.clear();
    this.byAccount.clear();
  }
}

import type { CreditLedger } from './credit-ledger';

/**
 * Each account's credit balance as read in the last second, for the "month" remainder of the
 * RateLimit field on answers past the quota that spent no credit (a 422, a refusal): a burst of
 * them reads the ledger once a second per account, not once a request. A header a second old is
 * as good a pace as the client gets from the next one.
 */
export interface BalanceMemo {
  /** The balance, from memory while younger than the TTL; undefined when the ledger cannot say. */
  read(accountId: string, now: number): Promise<number | undefined>;
  /** A balance this process has just read or made (a spend, /v1/me), kept in place of an older one. */
  note(accountId: string, balance: number, now: number): void;
}

export function createBalanceMemo(
  credits: Pick<CreditLedger, 'balance'>,
  ttlMs = 1000,
  maxEntries = 10_000,
): BalanceMemo {
  // A read in progress is shared by every answer that waits on it, and a failed read (undefined)
  // is kept like any other: a ledger down or slow is asked once a second, not by each answer.
  const kept = new Map<string, { balance: Promise<number | undefined>; until: number }>();
  const keep = (accountId: string, balance: Promise<number | undefined>, now: number): void => {
    // Entries live a second: past the bound, the oldest are the ones to go, and a clear is that.
    if (kept.size >= maxEntries && !kept.has(accountId)) kept.clear();
    kept.set(accountId, { balance, until: now + ttlMs });
  };
  return {
    note: (accountId, balance, now) => keep(accountId, Promise.resolve(balance), now),
    read(accountId, now) {
      const hit = kept.get(accountId);
      if (hit !== undefined && hit.until > now) return hit.balance;
      const balance: Promise<number | undefined> = credits.balance(accountId).catch(() => undefined);
      keep(accountId, balance, now);
      return balance;
    },
  };
}

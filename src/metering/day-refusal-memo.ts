/**
 * What a call refused for the day past the monthly quota was told, per account, for a second: the
 * day's limit, or quota and credits both used up (which takes a read of the credit balance). A
 * spent account's further requests are refused by Redis without taking a rate slot, so without it
 * each one would read the database; one read a second per account and replica is enough.
 */
export type DayRefusal = 'daily' | 'credits';

export interface DayRefusalMemo {
  known(accountId: string, now: number): DayRefusal | undefined;
  remember(accountId: string, answer: DayRefusal, now: number): void;
}

export function createDayRefusalMemo(ttlMs = 1000, maxEntries = 10_000): DayRefusalMemo {
  const answers = new Map<string, { answer: DayRefusal; until: number }>();
  return {
    known(accountId, now) {
      const hit = answers.get(accountId);
      return hit !== undefined && hit.until > now ? hit.answer : undefined;
    },
    remember(accountId, answer, now) {
      // Entries live a second: past the bound, the oldest are the ones to go, and a clear is that.
      if (answers.size >= maxEntries) answers.clear();
      answers.set(accountId, { answer, until: now + ttlMs });
    },
  };
}

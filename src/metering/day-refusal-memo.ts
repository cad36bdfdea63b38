/**
 * What a call refused for the day past the monthly quota is told: the day's limit, or quota and
 * credits both used up. The day's count then holds this replica's credit calls whose spend is on
 * its way: when the balance cannot pay them and this call too, the credits are what ran out (those
 * that fail give their day's calls back). A refused request takes no rate slot, so an answer is
 * kept a second per account, not read from the database for each request: 'daily' only while no
 * spend of the account is on its way, since one may end it.
 */
export type DayRefusal = 'daily' | 'credits';

export interface DayRefusalMemo {
  /** A spend of `calls` credit calls of the account starts on this replica. */
  spending(accountId: string, calls: number): void;
  /** ... and has ended, whatever its outcome. */
  spent(accountId: string, calls: number): void;
  /** Credit calls of the account whose spend is on its way on this replica. */
  inFlight(accountId: string): number;
  /** A spend of the account was paid: an answer that its credits had run out is now untrue. */
  paid(accountId: string): void;
  known(accountId: string, now: number): DayRefusal | undefined;
  remember(accountId: string, answer: DayRefusal, now: number): void;
}

export function createDayRefusalMemo(ttlMs = 1000, maxEntries = 10_000): DayRefusalMemo {
  const answers = new Map<string, { answer: DayRefusal; until: number }>();
  const spends = new Map<string, number>();
  const inFlight = (accountId: string): number => spends.get(accountId) ?? 0;
  return {
    spending(accountId, calls) {
      spends.set(accountId, inFlight(accountId) + calls);
    },
    spent(accountId, calls) {
      const left = inFlight(accountId) - calls;
      if (left > 0) spends.set(accountId, left);
      else spends.delete(accountId);
    },
    inFlight,
    paid(accountId) {
      if (answers.get(accountId)?.answer === 'credits') answers.delete(accountId);
    },
    known(accountId, now) {
      const hit = answers.get(accountId);
      if (hit === undefined || hit.until <= now) return undefined;
      return hit.answer === 'daily' && inFlight(accountId) > 0 ? undefined : hit.answer;
    },
    remember(accountId, answer, now) {
      if (answer === 'daily' && inFlight(accountId) > 0) return;
      // Entries live a second: past the bound, the oldest are the ones to go, and a clear is that.
      if (answers.size >= maxEntries) answers.clear();
      answers.set(accountId, { answer, until: now + ttlMs });
    },
  };
}

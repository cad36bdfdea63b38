import type { Queryable } from '../../db/db';
import { STATUS } from '../../data/legal-catalogs';
import type { Clock } from '../../util/clock';
import type { Logger } from '../../util/logger';

// Vietnam keeps UTC+7 all year: its calendar day needs no time-zone database.
const VIETNAM_OFFSET_MS = 7 * 3_600_000;
const DAY_MS = 86_400_000;
/** After a failed run, requests are not held up by another try for this long. */
const RETRY_MS = 60_000;

const isoDay = (dayNumber: number): string => new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);

/** The day in Vietnam at `now` (epoch ms), as a number of days since 1970-01-01. */
const vietnamDayNumber = (now: number): number => Math.floor((now + VIETNAM_OFFSET_MS) / DAY_MS);

/** The day in Vietnam at `now` (epoch ms), as YYYY-MM-DD. */
export const vietnamDay = (now: number): string => isoDay(vietnamDayNumber(now));

/**
 * The status a document has on `today` (YYYY-MM-DD, Vietnam): "not yet in effect" once its
 * effective date has come is in effect. The importer stores what this says, as the upkeep keeps it.
 */
export function statusOn(statusId: number, effectiveDate: string | null, today: string): number {
  return statusId === STATUS.notYet && effectiveDate !== null && effectiveDate <= today
    ? STATUS.inEffect
    : statusId;
}

/**
 * A document "not yet in effect" comes into effect on its effective date: the status a file (or the
 * sample) gave was true the day it was loaded, and this keeps it true as days pass. The upstream's
 * `ready` hook, so it runs before the first request of each day in Vietnam (later requests that day
 * pay one comparison); one UPDATE, idempotent, so replicas doing it side by side agree. A failure
 * is logged and the request served; the next try waits a minute.
 */
export function legalStatusUpkeep(db: Queryable, logger: Logger, clock: Clock): () => Promise<void> {
  let doneDay = -1;
  let retryAt = 0;
  let running: Promise<void> | undefined;
  const run = async (day: number): Promise<void> => {
    try {
      const moved = await db.query(
        `UPDATE legal_documents SET status_id = $1, updated_at = now()
          WHERE status_id = $2 AND effective_date <= $3::date RETURNING id`,
        [STATUS.inEffect, STATUS.notYet, isoDay(day)],
      );
      doneDay = day;
      if (moved.rows.length > 0)
        logger.info({ documents: moved.rows.length, day: isoDay(day) }, 'documents came into effect');
    } catch (err) {
      retryAt = clock.now() + RETRY_MS;
      logger.warn({ err }, 'status upkeep failed; serving the statuses as stored');
    }
  };
  return () => {
    const now = clock.now();
    const day = vietnamDayNumber(now);
    if (day === doneDay || now < retryAt) return Promise.resolve();
    running ??= run(day).finally(() => {
      running = undefined;
    });
    return running;
  };
}

import type { Db } from './db';

export interface RetimableDb {
  /** The database as the holder uses it, each query bounded by the latest `retime`. */
  db: Db;
  retime(ms: number): void;
}

/**
 * A Db handed once to something that lives across reloads (a built-in upstream's app), whose query
 * timeout a reload can still change: each call goes to the view of the current timeout.
 */
export function retimableDb(db: Db, ms: number): RetimableDb {
  let current = ms;
  let timed = db.withQueryTimeout(ms);
  return {
    db: {
      kind: db.kind,
      query: (sql, params) => timed.query(sql, params),
      transaction: (fn) => timed.transaction(fn),
      exec: (sql) => timed.exec(sql),
      withQueryTimeout: (n) => db.withQueryTimeout(n),
      close: () => db.close(),
    },
    retime(next) {
      if (next === current) return;
      current = next;
      timed = db.withQueryTimeout(next);
    },
  };
}

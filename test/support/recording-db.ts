import type { Db, Queryable } from '../../src/db/db';

/** `db` with every statement it is sent, through query, exec or a transaction ('BEGIN'), written into `into`. */
export function recordingDb(db: Db, into: string[]): Db {
  const wrap = (q: Queryable): Queryable => ({
    query(sql, params) {
      into.push(sql);
      return q.query(sql, params);
    },
  });
  return {
    ...db,
    ...wrap(db),
    transaction: (fn) => {
      into.push('BEGIN');
      return db.transaction((tx) => fn(wrap(tx)));
    },
    exec: (sql) => {
      into.push(sql);
      return db.exec(sql);
    },
    withQueryTimeout: (ms) => recordingDb(db.withQueryTimeout(ms), into),
  };
}

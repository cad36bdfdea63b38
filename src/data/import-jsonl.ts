import type { z } from 'zod';
import type { Db, Queryable } from '../db/db';
import { MAX_UPSTREAM_RESPONSE_BYTES } from '../upstream-kit/response-limit';

/** A dataset the importer can load: how to validate one row and how to upsert a batch. */
export interface ImportTarget<Row extends { id: string } = { id: string }> {
  dataset: string;
  /** Migration sets that create the dataset's tables. */
  migrationSets: string[];
  schema: z.ZodType<Row>;
  /** Upserts rows (inside the import transaction); must be idempotent. */
  upsert(tx: Queryable, rows: Row[]): Promise<void>;
  /**
   * Checks the valid rows against what is already stored (ids a row refers to), inside the import
   * transaction and before any upsert, so an error names its line and value instead of surfacing as
   * a constraint violation of a 500-row batch.
   */
  check?(tx: Queryable, rows: readonly { line: number; row: Row }[]): Promise<ImportError[]>;
}

export interface ImportError {
  /** 1-based line number in the file; 0 when the error is not tied to one line. */
  line: number;
  message: string;
}

export interface ImportReport {
  ok: boolean;
  /** Non-blank lines read. */
  rows: number;
  /** Rows written; 0 whenever ok is false (nothing is half-loaded). */
  loaded: number;
  errors: ImportError[];
  /** Whether validation stopped at maxErrors, so later lines may hold more. */
  truncated: boolean;
}

const BATCH = 500;

/** A record is served whole in one upstream answer; half of its ceiling leaves room for the envelope. */
const MAX_LINE_BYTES = MAX_UPSTREAM_RESPONSE_BYTES / 2;

/** Thrown inside the transaction to roll it back when the stored data refuses rows. */
class Refused extends Error {
  constructor(readonly errors: ImportError[]) {
    super('refused');
  }
}

/**
 * Validates every line first (bad JSON, wrong types, duplicate ids), then writes all rows in one
 * transaction. Any error, in validation or in the database, loads nothing.
 */
export async function importJsonl<Row extends { id: string }>(db: Db, target: ImportTarget<Row>, text: string, maxErrors = 100): Promise<ImportReport> {
  const errors: ImportError[] = [];
  const rows: { line: number; row: Row }[] = [];
  const firstLine = new Map<string, number>();
  // A byte-order mark (some editors write one) is not part of the first row's JSON.
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '' || errors.length >= maxErrors) return;
    const bytes = Buffer.byteLength(raw);
    if (bytes > MAX_LINE_BYTES) {
      const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;
      errors.push({
        line,
        message: `record of ${mib(bytes)}: at most ${mib(MAX_LINE_BYTES)}, so that one answer can carry it`,
      });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      errors.push({ line, message: `invalid JSON: ${(err as Error).message}` });
      return;
    }
    const parsed = target.schema.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues.map(
        (iss) =>
          `${iss.path.join('.') || '(row)'}: ${iss.code === 'invalid_type' && /received undefined$/.test(iss.message) ? 'required' : iss.message}`,
      );
      errors.push({ line, message: issues.join('; ') });
      return;
    }
    const seen = firstLine.get(parsed.data.id);
    if (seen !== undefined) {
      errors.push({ line, message: `duplicate id ${parsed.data.id} (first on line ${seen})` });
      return;
    }
    firstLine.set(parsed.data.id, line);
    rows.push({ line, row: parsed.data });
  });
  const count = lines.filter((l) => l.trim() !== '').length;
  const truncated = errors.length >= maxErrors;
  if (errors.length > 0) return { ok: false, rows: count, loaded: 0, errors, truncated };
  let at = 0;
  try {
    await db.transaction(async (tx) => {
      const refused = (await target.check?.(tx, rows)) ?? [];
      if (refused.length > 0) throw new Refused(refused.slice(0, maxErrors));
      for (; at < rows.length; at += BATCH) await target.upsert(tx, rows.slice(at, at + BATCH).map((r) => r.row));
    });
  } catch (err) {
    if (err instanceof Refused) return { ok: false, rows: count, loaded: 0, errors: err.errors, truncated: false };
    const batch = rows.slice(at, at + BATCH);
    const where = batch.length ? `rows on lines ${batch[0]!.line}-${batch[batch.length - 1]!.line}` : 'the file';
    return { ok: false, rows: count, loaded: 0, errors: [{ line: batch[0]?.line ?? 0, message: `database rejected ${where}: ${(err as Error).message}` }], truncated: false };
  }
  return { ok: true, rows: count, loaded: rows.length, errors: [], truncated: false };
}

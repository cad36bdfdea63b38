import type { z } from 'zod';
import type { Db, Queryable } from '../db/db';
import { systemClock } from '../util/clock';
import type { Clock } from '../util/clock';
import { MAX_UPSTREAM_RESPONSE_BYTES } from '../upstream-kit/response-limit';
import { composedText, textProblem } from './import-text';

/** A dataset the importer can load: how to validate one row and how to upsert a batch. */
export interface ImportTarget<Row extends { id: string | number } = { id: string | number }> {
  dataset: string;
  /** Migration sets that create the dataset's tables. */
  migrationSets: string[];
  schema: z.ZodType<Row>;
  /** Upserts rows (inside the import transaction); must be idempotent. */
  /** `now`: the import's clock (epoch ms), for rows whose stored form depends on the day. */
  upsert(tx: Queryable, rows: Row[], now: number): Promise<void>;
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
  /** Whether more lines failed than maxErrors, so not every bad line is listed. */
  truncated: boolean;
}

const BATCH = 500;
/**
 * A batch is also written once its lines hold this many characters: 500 large documents would be
 * one INSERT of gigabytes, past what PostgreSQL takes in a message (1 GiB), and as much in memory.
 */
const BATCH_CHARS = 64 * 1024 * 1024;

/** A record is served whole in one upstream answer; half of its ceiling leaves room for the envelope. */
const MAX_LINE_BYTES = MAX_UPSTREAM_RESPONSE_BYTES / 2;

/** Thrown inside the transaction to roll it back once any line has failed. */
class Failed extends Error {}

const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** One line's row, or what is wrong with it (bad JSON, wrong types, too large). */
function parseLine<Row>(raw: string, schema: z.ZodType<Row>): { row: Row } | { error: string } {
  const bytes = Buffer.byteLength(raw);
  if (bytes > MAX_LINE_BYTES) {
    return { error: `record of ${mib(bytes)}: at most ${mib(MAX_LINE_BYTES)}, so that one answer can carry it` };
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { error: `invalid JSON: ${(err as Error).message}` };
  }
  const damaged = textProblem(value);
  if (damaged !== undefined) return { error: damaged };
  const parsed = schema.safeParse(composedText(value));
  if (parsed.success) return { row: parsed.data };
  const issues = parsed.error.issues.map(
    (iss) =>
      `${iss.path.join('.') || '(row)'}: ${iss.code === 'invalid_type' && /received undefined$/.test(iss.message) ? 'required' : iss.message}`,
  );
  return { error: issues.join('; ') };
}

/**
 * Reads the lines as they come (a file of any size, in memory one batch and the ids seen), checks
 * each (JSON, types, duplicate ids, then the stored data a batch refers to) and writes the rows in
 * batches, all in one transaction: any error rolls it back, so the file loads whole or not at all.
 * After the first error nothing more is written, but the rest is still checked (the stored data
 * too, unless the database itself failed), so one run reports every bad line (up to maxErrors).
 */
export async function importJsonl<Row extends { id: string | number }>(
  db: Db,
  target: ImportTarget<Row>,
  source: string | AsyncIterable<string>,
  maxErrors = 100,
  clock: Clock = systemClock,
  batchChars = BATCH_CHARS,
): Promise<ImportReport> {
  const errors: ImportError[] = [];
  const firstLine = new Map<string | number, number>();
  let rows = 0;
  let loaded = 0;
  let truncated = false;
  const fail = (e: ImportError): void => {
    if (errors.length < maxErrors) errors.push(e);
    else truncated = true;
  };
  try {
    await db.transaction(async (tx) => {
      let batch: { line: number; row: Row }[] = [];
      let heldChars = 0;
      // After a failed statement PostgreSQL refuses every other one in the transaction.
      let databaseFailed = false;
      const flush = async (): Promise<void> => {
        const rowsOf = batch;
        batch = [];
        heldChars = 0;
        if (databaseFailed || rowsOf.length === 0) return;
        const refused = (await target.check?.(tx, rowsOf)) ?? [];
        refused.forEach(fail);
        if (errors.length > 0) return;
        try {
          await target.upsert(
            tx,
            rowsOf.map((r) => r.row),
            clock.now(),
          );
          loaded += rowsOf.length;
        } catch (err) {
          databaseFailed = true;
          const where = `rows on lines ${rowsOf[0]!.line}-${rowsOf[rowsOf.length - 1]!.line}`;
          fail({ line: rowsOf[0]!.line, message: `database rejected ${where}: ${(err as Error).message}` });
        }
      };
      let line = 0;
      for await (const text of typeof source === 'string' ? source.split(/\r?\n/) : source) {
        line++;
        // A byte-order mark (some editors write one) is not part of the first row's JSON.
        const raw = line === 1 ? text.replace(/^\uFEFF/, '') : text;
        if (raw.trim() === '') continue;
        rows++;
        if (truncated) continue;
        const got = parseLine(raw, target.schema);
        if ('error' in got) {
          fail({ line, message: got.error });
          continue;
        }
        const seen = firstLine.get(got.row.id);
        if (seen !== undefined) {
          fail({ line, message: `duplicate id ${got.row.id} (first on line ${seen})` });
          continue;
        }
        firstLine.set(got.row.id, line);
        batch.push({ line, row: got.row });
        heldChars += raw.length;
        if (batch.length >= BATCH || heldChars >= batchChars) await flush();
      }
      await flush();
      if (errors.length > 0) throw new Failed();
    });
  } catch (err) {
    if (!(err instanceof Failed)) throw err;
    return { ok: false, rows, loaded: 0, errors, truncated };
  }
  return { ok: true, rows, loaded, errors: [], truncated: false };
}

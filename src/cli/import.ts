// npm run import -- <dataset> <file.jsonl>
// Loads a JSON Lines file into a dataset: every row validated, all or nothing, idempotent upserts.
// Database: DATABASE_URL (PostgreSQL) or PGlite in DATA_DIR (default ./var; refused while a running
// server holds that PGlite directory, which allows one process only).
import { accessSync, constants, statSync } from 'node:fs';
import { analyzeTables, vacuumUnvisited } from '../db/analyze';
import { openDb } from '../db/open-db';
import { migrate } from '../db/migrate';
import { fileLines } from '../data/file-lines';
import { importJsonl } from '../data/import-jsonl';
import { IMPORT_TARGETS } from '../data/import-targets';

async function main(argv: string[]): Promise<number> {
  const [dataset, file] = argv;
  if (!dataset || !file) {
    console.error(
      'usage: npm run import -- <dataset> <file.jsonl>\ndatasets: ' + Object.keys(IMPORT_TARGETS).join(', '),
    );
    return 2;
  }
  const target = Object.hasOwn(IMPORT_TARGETS, dataset) ? IMPORT_TARGETS[dataset] : undefined;
  if (!target) {
    console.error(`unknown dataset ${dataset}; one of: ${Object.keys(IMPORT_TARGETS).join(', ')}`);
    return 2;
  }
  // Before the database is opened: a path that is not a readable file is the caller's mistake.
  if (!statSync(file).isFile()) throw new Error(`${file}: not a file`);
  accessSync(file, constants.R_OK);
  const db = await openDb({
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir: process.env.DATA_DIR || './var',
  });
  try {
    for (const set of target.migrationSets) await migrate(db, set);
    // Line by line from the disk: a corpus of many gigabytes never sits in memory whole.
    const report = await importJsonl(db, target, fileLines(file));
    for (const e of report.errors) console.error(`${file}:${e.line}: ${e.message}`);
    if (!report.ok) {
      const cut = report.truncated ? ', reading stopped at the first ones' : '';
      console.error(`nothing loaded: ${report.errors.length} error(s) in ${report.rows} row(s)${cut}`);
      return 1;
    }
    // The planner's statistics follow the rows: a table that grew tenfold is otherwise planned as before.
    await analyzeTables(db, 'all');
    // The new rows' pages, for index-only scans (PGlite never vacuums by itself); analysed just above.
    await vacuumUnvisited(db, { analyze: false });
    console.log(`loaded ${report.loaded} row(s) into ${dataset}`);
    return 0;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);

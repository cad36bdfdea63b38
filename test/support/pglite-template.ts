import { PGlite } from '@electric-sql/pglite';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import type { Db } from '../../src/db/db';
import { openPgliteDb } from '../../src/db/pglite-db';

const PGLITE_VERSION = (
  JSON.parse(
    readFileSync(resolve(__dirname, '../../node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string }
).version;

/** Made once per PGlite version on a machine, shared by every worker and run. */
const TEMPLATE = join(tmpdir(), `lookup-pglite-cluster-${PGLITE_VERSION}.tar`);

/** Reads the dump, making it first when there is none (or a run on another version removed it). */
async function readTemplate(): Promise<Blob> {
  try {
    return new Blob([readFileSync(TEMPLATE)]);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return new Blob([await makeTemplate()]);
}

/** A fresh cluster's dump, written whole or not at all. */
async function makeTemplate(): Promise<Buffer> {
  const pg = await PGlite.create();
  const dump = Buffer.from(await (await pg.dumpDataDir('none')).arrayBuffer());
  await pg.close();
  // Workers may race to make it: each writes its own file, and a rename replaces the path whole.
  const own = `${TEMPLATE}.${process.pid}`;
  writeFileSync(own, dump);
  renameSync(own, TEMPLATE);
  dropOtherVersions();
  return dump;
}

/**
 * Writes a fresh cluster into `dir`, an empty DATA_DIR, so that a product process started on it
 * runs its migrations and seeds without initdb first (the e2e suites start a dozen such processes).
 */
export async function writeTemplateCluster(dir: string): Promise<void> {
  const extract = (): Buffer => execFileSync('tar', ['-xf', TEMPLATE, '-C', dir], { stdio: 'ignore' });
  try {
    extract();
  } catch {
    // None yet, or a run on another PGlite version has just removed it.
    await makeTemplate();
    extract();
  }
}

/** An upgrade of PGlite would otherwise leave the old version's 40 MB behind, run after run. */
function dropOtherVersions(): void {
  const name = basename(TEMPLATE);
  for (const other of readdirSync(tmpdir()))
    if (/^lookup-pglite-cluster-[^/]+\.tar$/.test(other) && other !== name)
      rmSync(join(tmpdir(), other), { force: true });
}

// Read once per test file (a Blob is immutable): a file opens several databases, and each read is
// 40 MB.
let template: Promise<Blob> | undefined;

/** An empty in-memory PGlite database, as openPgliteDb() opens one, started from a dumped cluster. */
export async function openTestPglite(): Promise<Db> {
  template ??= readTemplate();
  return openPgliteDb(undefined, { template: await template });
}

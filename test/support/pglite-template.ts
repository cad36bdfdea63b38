import { PGlite } from '@electric-sql/pglite';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Db } from '../../src/db/db';
import { openPgliteDb } from '../../src/db/pglite-db';

const PGLITE_VERSION = (
  JSON.parse(
    readFileSync(resolve(__dirname, '../../node_modules/@electric-sql/pglite/package.json'), 'utf8'),
  ) as { version: string }
).version;

/** Made once per PGlite version on a machine, shared by every worker and run. */
const TEMPLATE = join(tmpdir(), `lookup-pglite-cluster-${PGLITE_VERSION}.tar`);

/** A fresh cluster's dump: made by the first open that finds none, written whole or not at all. */
async function readTemplate(): Promise<Blob> {
  if (!existsSync(TEMPLATE)) {
    const pg = await PGlite.create();
    const dump = await pg.dumpDataDir('none');
    await pg.close();
    // Workers may race to make it: each writes its own file, and a rename replaces the path whole.
    const own = `${TEMPLATE}.${process.pid}`;
    writeFileSync(own, Buffer.from(await dump.arrayBuffer()));
    renameSync(own, TEMPLATE);
  }
  return new Blob([readFileSync(TEMPLATE)]);
}

// Read once per test file (a Blob is immutable): a file opens several databases, and each read is
// 40 MB.
let template: Promise<Blob> | undefined;

/** An empty in-memory PGlite database, as openPgliteDb() opens one, started from a dumped cluster. */
export async function openTestPglite(): Promise<Db> {
  template ??= readTemplate();
  return openPgliteDb(undefined, { template: await template });
}

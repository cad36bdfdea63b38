// Generates docs/examples/lookup-api.d.ts (TypeScript types of the API) from the OpenAPI document
// built from config/, with openapi-typescript. Usage: tsx scripts/generate-client-types.ts [configDir]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildOpenApi } from '../src/openapi/build-openapi';
import { loadConfig } from '../src/runtime/config-source';

const root = resolve(__dirname, '..');
const configDir = resolve(process.argv[2] ?? process.env.CONFIG_DIR ?? join(root, 'config'));
const out = join(root, 'docs', 'examples', 'lookup-api.d.ts');
const bin = (name: string): string => join(root, 'node_modules', '.bin', name);

function run(cmd: string, args: string[]): void {
  const res = spawnSync(cmd, args, { stdio: 'inherit', cwd: root });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${res.status ?? res.signal}`);
}

const dir = mkdtempSync(join(tmpdir(), 'lookup-openapi-types-'));
try {
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(buildOpenApi(loadConfig(configDir))));
  // --root-types: each schema also exported by name (LegalDocument…), nicer in client code.
  run(bin('openapi-typescript'), [file, '--output', out, '--root-types', '--root-types-no-schema-prefix']);
  // The file is committed: keep it in the repository's Prettier style so `prettier --check .` passes.
  run(bin('prettier'), ['--write', '--log-level', 'warn', out]);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

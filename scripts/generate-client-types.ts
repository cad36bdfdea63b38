// Generates docs/examples/lookup-api.d.ts (TypeScript types of the API) from the OpenAPI document
// built from config/, with openapi-typescript. Usage: tsx scripts/generate-client-types.ts [configDir]
// (test/openapi/client-types.test.ts fails when the committed file differs from a fresh run).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildOpenApi } from '../src/openapi/build-openapi';
import { loadConfig } from '../src/runtime/config-source';

const root = resolve(__dirname, '..');
export const clientTypesFile = join(root, 'docs', 'examples', 'lookup-api.d.ts');
const bin = (name: string): string => join(root, 'node_modules', '.bin', name);

function run(cmd: string, args: string[], input?: string): string {
  const res = spawnSync(cmd, args, {
    cwd: root,
    input,
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  if (res.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited with ${res.status ?? res.signal}`);
  return res.stdout;
}

/** Writes the types of the document built from configDir to out, in the repository's style. */
export function generateClientTypes(configDir: string, out: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'lookup-openapi-types-'));
  try {
    const file = join(dir, 'openapi.json');
    const types = join(dir, 'lookup-api.d.ts');
    writeFileSync(file, JSON.stringify(buildOpenApi(loadConfig(configDir))));
    // --root-types: each schema also exported by name (LegalDocument…), nicer in client code.
    run(bin('openapi-typescript'), [
      file,
      '--output',
      types,
      '--root-types',
      '--root-types-no-schema-prefix',
    ]);
    // The file is committed: keep it in the repository's Prettier style so `prettier --check .` passes
    // (formatted as if at its committed path, so the repository's Prettier config applies).
    const formatted = run(
      bin('prettier'),
      ['--stdin-filepath', clientTypesFile],
      readFileSync(types, 'utf8'),
    );
    writeFileSync(out, formatted);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  generateClientTypes(
    resolve(process.argv[2] ?? process.env.CONFIG_DIR ?? join(root, 'config')),
    clientTypesFile,
  );
}

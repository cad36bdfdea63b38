// Lints the generated OpenAPI document with Redocly (rules in redocly.yaml).
// Usage: tsx scripts/lint-openapi.ts [configDir]   (default: CONFIG_DIR or ./config)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildOpenApi } from '../src/openapi/build-openapi';
import { loadConfig } from '../src/runtime/config-source';

const root = resolve(__dirname, '..');
const configDir = resolve(process.argv[2] ?? process.env.CONFIG_DIR ?? join(root, 'config'));
const dir = mkdtempSync(join(tmpdir(), 'lookup-openapi-'));
const file = join(dir, 'openapi.json');
let status = 1;
try {
  writeFileSync(file, JSON.stringify(buildOpenApi(loadConfig(configDir)), null, 2));
  const res = spawnSync(
    join(root, 'node_modules', '.bin', 'redocly'),
    ['lint', file, '--config', join(root, 'redocly.yaml')],
    {
      stdio: 'inherit',
      cwd: root,
      // No usage telemetry or update check from CI.
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    },
  );
  status = res.status ?? 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(status);

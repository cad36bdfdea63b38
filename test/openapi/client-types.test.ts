import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientTypesFile, generateClientTypes } from '../../scripts/generate-client-types';

const CONFIG_DIR = join(__dirname, '..', '..', 'config');

describe('the typed client in docs/examples', () => {
  it('holds the types a fresh generation from the shipped config writes (run scripts/generate-client-types.ts after a document change)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'client-types-test-'));
    try {
      const out = join(dir, 'lookup-api.d.ts');
      generateClientTypes(CONFIG_DIR, out);
      expect(readFileSync(clientTypesFile, 'utf8')).toBe(readFileSync(out, 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

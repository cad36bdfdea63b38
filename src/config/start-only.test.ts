import { join } from 'node:path';
import { compileConfig } from './compile-config';
import { loadRawConfig } from './load-config';
import { startOnlyChanges } from './start-only';

const CONFIG_DIR = join(__dirname, '..', '..', 'config');
const load = (edit: (raw: ReturnType<typeof loadRawConfig>) => void = () => undefined) => {
  const raw = loadRawConfig(CONFIG_DIR);
  edit(raw);
  return compileConfig(raw);
};

describe('settings a reload cannot change', () => {
  it('names none when only live settings change', () => {
    const next = load((raw) => {
      raw.gateway.preview_chars = 300;
      raw.plans.default_per_page = 10;
    });
    expect(startOnlyChanges(load(), next)).toEqual([]);
  });

  it('names store_failure, the public port and the key cache when they change', () => {
    const next = load((raw) => {
      raw.gateway.store_failure = raw.gateway.store_failure === 'open' ? 'closed' : 'open';
      raw.gateway.port += 1;
      raw.gateway.key_cache = { ...raw.gateway.key_cache, ttl_seconds: raw.gateway.key_cache.ttl_seconds + 1 };
    });
    expect(startOnlyChanges(load(), next)).toEqual(['port', 'store_failure', 'key_cache']);
  });

  it('does not name a port the environment sets (PORT, ADMIN_PORT), whose file value is not used', () => {
    const next = load((raw) => {
      raw.gateway.port += 1;
      raw.gateway.admin_port += 1;
    });
    expect(startOnlyChanges(load(), next, ['port'])).toEqual(['admin_port']);
    expect(startOnlyChanges(load(), next, ['port', 'admin_port'])).toEqual([]);
  });
});

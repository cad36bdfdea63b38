import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGatewayMetrics } from '../observability/gateway-metrics';
import { projectRoot } from '../util/project-root';
import { capturedLog } from '../../test/support/captured-log';
import type { RuntimeConfig } from '../config/compile-config';
import { configFingerprint, loadConfig } from './config-source';
import { createConfigReloader } from './config-reloader';

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'lookup-reloader-')), 'config');
  cpSync(join(projectRoot(), 'config'), dir, { recursive: true });
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

/** A reloader of the copied config with the given refusals; what it applied. */
function reloaderWith(
  pending: (next: RuntimeConfig) => Promise<string[]>,
  refusals: string[] = [],
  overridden: string[] = [],
) {
  const applied: RuntimeConfig[] = [];
  const { logger, lines } = capturedLog();
  const metrics = createGatewayMetrics({ defaultMetrics: false });
  const r = createConfigReloader({
    configDir: dir,
    started: loadConfig(dir),
    overridden,
    startedFingerprint: configFingerprint(dir),
    refusals: () => Promise.resolve(refusals),
    pending,
    apply: (next) => void applied.push(next),
    metrics,
    logger,
  });
  const failures = async () =>
    (await metrics.configReloads.get()).values.find((v) => v.labels.result === 'failure')?.value ?? 0;
  return { r, applied, lines, failures };
}

const edit = (file: string, change: (text: string) => string): void =>
  writeFileSync(join(dir, file), change(readFileSync(join(dir, file), 'utf8')));

describe('config reloads refused for a reason that may pass', () => {
  it('reads the same files again at the next check, and takes them once the reason has passed', async () => {
    let accountsOnIt = 1;
    const { r, applied } = reloaderWith((next) =>
      Promise.resolve(
        !next.plans.has('enterprise') && accountsOnIt > 0 ? ['plan enterprise has accounts'] : [],
      ),
    );
    edit('plans.yaml', (t) => t.replace(/^ {2}enterprise:.*\n/m, ''));
    expect(r.changed()).toBe(true);
    expect(await r.reload()).toBe(false);
    // The files did not change, but the refusal may pass: the watch's next check reads them again.
    expect(r.changed()).toBe(true);
    expect(await r.reload()).toBe(false);
    accountsOnIt = 0;
    expect(r.changed()).toBe(true);
    expect(await r.reload()).toBe(true);
    expect(applied.map((c) => c.plans.has('enterprise'))).toEqual([false]);
    expect(r.changed()).toBe(false);
  });
});

describe('config reloads refused for a reason that may pass: logs', () => {
  it('logs and counts the refusal once while the watch reads the same files again, and answers each operator reload', async () => {
    let reason = 'plan enterprise has 1 account';
    const { r, lines, failures } = reloaderWith(() => Promise.resolve(reason ? [reason] : []));
    edit('plans.yaml', (t) => t.replace(/^ {2}enterprise:.*\n/m, ''));
    const said = async (how: 'watch' | 'operator') => {
      lines.length = 0;
      await r.reload(how);
      return [lines.map((l) => `${String(l.level)} ${String(l.err ?? l.msg)}`), await failures()];
    };
    expect(await said('watch')).toEqual([['50 plan enterprise has 1 account'], 1]);
    expect(await said('watch')).toEqual([[], 1]);
    expect(await said('operator')).toEqual([['50 plan enterprise has 1 account'], 2]);
    expect(await said('watch')).toEqual([[], 2]);
    reason = 'plan enterprise has 2 accounts';
    expect(await said('watch')).toEqual([['50 plan enterprise has 2 accounts'], 3]);
    reason = '';
    expect(await said('watch')).toEqual([['30 configuration reloaded'], 3]);
  });
});

describe('config reloads refused for good', () => {
  it('does not read the same files again after a refusal only an edit can lift', async () => {
    const { r, applied } = reloaderWith(() => Promise.resolve([]), ['a built-in upstream moved']);
    edit('gateway.yaml', (t) => `${t}\n# edited\n`);
    expect(await r.reload()).toBe(false);
    expect(r.changed()).toBe(false);
    edit('gateway.yaml', (t) => `${t}# edited again\n`);
    expect(r.changed()).toBe(true);
    expect(applied).toEqual([]);
  });
});

describe('config reloads that change a port the environment sets', () => {
  it('names the port, since the edit is used neither now nor at the next start', async () => {
    const { r, lines } = reloaderWith(() => Promise.resolve([]), [], ['admin_port']);
    edit('gateway.yaml', (t) => t.replace(/^admin_port: .*$/m, 'admin_port: 9191'));
    expect(await r.reload()).toBe(true);
    expect(lines.map((l) => [l.level, l.msg, l.not_used, l.start_only])).toEqual([
      [
        40,
        'configuration reloaded; the environment sets these ports instead',
        ['gateway.yaml admin_port (ADMIN_PORT sets it)'],
        undefined,
      ],
    ]);
  });

  it('names a port the file alone sets as kept until the next start', async () => {
    const { r, lines } = reloaderWith(() => Promise.resolve([]));
    edit('gateway.yaml', (t) => t.replace(/^admin_port: .*$/m, 'admin_port: 9191'));
    expect(await r.reload()).toBe(true);
    expect(lines.map((l) => [l.level, l.start_only, l.not_used])).toEqual([
      [40, ['gateway.yaml admin_port'], undefined],
    ]);
  });
});

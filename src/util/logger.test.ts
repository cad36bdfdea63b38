import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { accessLog, createLogger, batchedDestination } from './logger';
import type { AccessFields, BatchedDestination } from './logger';

function capture(): { stream: Writable; lines: () => string[] } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      text += chunk.toString('utf8');
      cb();
    },
  });
  return { stream, lines: () => text.split('\n').filter(Boolean) };
}

const fields: AccessFields = {
  req_id: 'r-1',
  account_id: 'acc_1',
  key_id: 'key_1',
  plan: 'pro',
  dataset: 'legal-documents',
  id: 'vb_1',
  status: 200,
  code: 'ok',
  param: undefined,
  duration_ms: 12.3,
  upstream_ms: 9.5,
  upstream_wait_ms: 2,
  ip: '203.0.113.9',
};

describe('the access line', () => {
  it('reads as the logger’s own info line for the same fields, key for key and in order', () => {
    const out = capture();
    const logger = createLogger('info', out.stream);
    logger.info({ ...fields }, 'request');
    accessLog(logger)(fields);
    const [own, access] = out.lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(typeof access!.time).toBe('number');
    expect(Object.keys(access!)).toEqual(Object.keys(own!));
    expect({ ...access, time: 0 }).toEqual({ ...own, time: 0 });
  });

  it('leaves out fields that are undefined, as pino does', () => {
    const out = capture();
    accessLog(createLogger('info', out.stream))({ ...fields, account_id: undefined, upstream_ms: undefined });
    const line = JSON.parse(out.lines()[0]!) as Record<string, unknown>;
    expect(line).not.toHaveProperty('account_id');
    expect(line).not.toHaveProperty('upstream_ms');
    expect(line.msg).toBe('request');
  });

  it('carries a child logger’s bindings', () => {
    const out = capture();
    const logger = createLogger('info', out.stream).child({ component: 'gateway' });
    accessLog(logger)(fields);
    expect(JSON.parse(out.lines()[0]!)).toMatchObject({ component: 'gateway', req_id: 'r-1' });
  });

  it('carries the bindings pino adds itself (pid, hostname) when the logger has them', () => {
    const out = capture();
    const logger = pino({}, out.stream);
    logger.info({ ...fields }, 'request');
    accessLog(logger)(fields);
    const [own, access] = out.lines().map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(access!)).toEqual(Object.keys(own!));
    expect(access).toMatchObject({ pid: process.pid, hostname: own!.hostname });
  });

  it('writes the time as the logger’s own time function does', () => {
    const out = capture();
    const logger = pino({ base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, out.stream);
    accessLog(logger)(fields);
    expect((JSON.parse(out.lines()[0]!) as { time: unknown }).time).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('goes through pino on a multistream, which routes lines by their level', () => {
    const info = capture();
    const errors = capture();
    const logger = pino(
      {},
      pino.multistream([
        { level: 'info', stream: info.stream },
        { level: 'error', stream: errors.stream },
      ]),
    );
    logger.error('boom');
    accessLog(logger)(fields);
    expect(errors.lines()).toHaveLength(1);
    expect(info.lines().map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['boom', 'request']);
  });

  it('writes nothing while the level is above info, and follows a level changed at run time', () => {
    const out = capture();
    const logger = createLogger('warn', out.stream);
    const log = accessLog(logger);
    log(fields);
    expect(out.lines()).toHaveLength(0);
    logger.level = 'info';
    log(fields);
    expect(out.lines()).toHaveLength(1);
  });

  it('escapes what a caller sent, so one request stays one line', () => {
    const out = capture();
    accessLog(createLogger('info', out.stream))({ ...fields, req_id: 'a"b\nc' });
    expect(out.lines()).toHaveLength(1);
    expect((JSON.parse(out.lines()[0]!) as { req_id: string }).req_id).toBe('a"b\nc');
  });
});

describe('the batched output', () => {
  let dir: string;
  let out: BatchedDestination;
  const file = (): string => join(dir, 'out.log');
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lk-log-'));
    out = batchedDestination(file());
  });
  afterEach(() => {
    out.end();
    rmSync(dir, { recursive: true, force: true });
  });

  it('holds lines until 4 KB are pending, then writes them whole and in order', () => {
    const logger = createLogger('info', out);
    const log = accessLog(logger);
    log(fields);
    expect(readFileSync(file(), 'utf8')).toBe('');
    for (let i = 0; i < 40; i++) log({ ...fields, req_id: `r-${i}`, dataset: 'văn-bản-pháp-luật' });
    const written = readFileSync(file(), 'utf8');
    expect(Buffer.byteLength(written)).toBeGreaterThanOrEqual(4096);
    out.flushSync();
    const lines = readFileSync(file(), 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(41);
    const parsed = lines.map((l) => JSON.parse(l) as { req_id: string; dataset: string });
    expect(parsed.slice(1).map((l) => l.req_id)).toEqual(Array.from({ length: 40 }, (_, i) => `r-${i}`));
    expect(parsed[40]!.dataset).toBe('văn-bản-pháp-luật');
  });

  it('writes a lone line within the flush period, without 4 KB behind it', async () => {
    accessLog(createLogger('info', out))(fields);
    expect(readFileSync(file(), 'utf8')).toBe('');
    await new Promise((r) => setTimeout(r, 250));
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toMatchObject({ req_id: 'r-1', msg: 'request' });
  });

  it('writes what is pending when the logger is flushed', async () => {
    const logger = createLogger('info', out);
    logger.warn({ ip: '203.0.113.9' }, 'upstream slow');
    await new Promise<void>((resolve, reject) => logger.flush((err) => (err ? reject(err) : resolve())));
    expect(JSON.parse(readFileSync(file(), 'utf8'))).toMatchObject({ level: 40, msg: 'upstream slow' });
  });
});

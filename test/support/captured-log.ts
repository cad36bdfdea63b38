import { Writable } from 'node:stream';
import { createLogger } from '../../src/util/logger';
import type { Logger } from '../../src/util/logger';

/** A logger (at `info` unless told) whose JSON lines land, parsed, in `lines` as they are written. */
export function capturedLog(level = 'info'): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger(level, sink), lines };
}

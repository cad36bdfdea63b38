import pino from 'pino';
import type { Logger } from 'pino';
import { accessMembers } from './access-line';
import type { AccessFields } from './access-line';
import { decimal } from './decimal';
import { createUtf8Encoder } from './utf8-slab';

export type { AccessFields, Logger };

/** Paths that may carry secrets; pino replaces them before a line is written. */
const REDACT = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'key',
  'api_key',
  'token',
  'secret',
  '*.key',
  '*.token',
  '*.secret',
  '*.password',
];

/**
 * Standard output is written in batches: lines wait for 4 KB or at most 100 ms, so a busy gateway
 * makes one write per ~15 access lines. The write itself is synchronous, as in pino's default: a
 * 4 KB write costs less than handing it to a worker thread and being woken when it is done (two
 * context switches per batch on the gateway's core). pino writes the pending lines at once before a
 * fatal line; for a synchronous destination it installs no exit hook, so the entry point flushes at
 * exit (main.ts).
 */
export function createLogger(level = 'info', destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT, censor: '[redacted]' },
      base: undefined,
      // pino's epochTime, without the number-to-string cache (see decimal.ts).
      timestamp: () => `,"time":${decimal(Date.now())}`,
    },
    destination ?? batchedDestination(),
  );
}

/**
 * sonic-boom's string mode appends each line to the pending batch (`batch += line`) and measures
 * the whole batch with Buffer.byteLength first, which flattens it: every line copies all the lines
 * before it in its batch (≈ 2.5 KB allocated per access line at 4 KB batches). Its buffer mode keeps
 * a list per batch and joins it once, at the write; pino writes strings, so each line is encoded
 * here, once, into a slab (utf8-slab.ts).
 */
export function batchedDestination(dest: number | string = 1): BatchedDestination {
  const boom = pino.destination({
    dest,
    sync: true,
    minLength: 4096,
    periodicFlush: 100,
    contentMode: 'buffer',
  });
  // In buffer mode the stream's write takes bytes; its types only describe the string mode.
  const bytes = boom as unknown as { write(bytes: Buffer): boolean };
  const utf8 = createUtf8Encoder();
  return {
    // Looked up on each call: once the reader is gone (EPIPE), pino replaces write and flushSync
    // with no-ops, and lines are dropped instead of piling up in the batch.
    write: (line) => bytes.write(utf8.encode(line)),
    flush: (cb) => boom.flush(cb),
    flushSync: () => {
      // sonic-boom 4's flushSync retries a failed write forever, EPIPE included, which hung the
      // exit of a process whose output pipe had closed. One write through flush() first: a broken
      // pipe fails there as an error event, and pino's handler makes flushSync a no-op.
      boom.flush();
      boom.flushSync();
    },
    end: () => boom.end(),
  };
}

export interface BatchedDestination {
  write(line: string): boolean;
  flush(cb?: (err?: Error) => void): void;
  flushSync(): void;
  /** Writes what is pending, stops the periodic flush and closes the file (never standard output). */
  end(): void;
}

export type AccessLog = (fields: AccessFields) => void;

/**
 * Writes the access line to the logger's own destination, as the logger writes
 * `info(fields, 'request')`: {"level":30,<its time>,<bindings>,<fields>,"msg":"request"}, fields
 * left undefined left out. The fields are fixed and never hold a secret, so the line skips the
 * redaction pass, and the fields are written as JSON member by member (access-line.ts) instead of
 * through pino's loop over them (numbers joined with '+', which fill V8's number-to-string cache: see
 * decimal.ts). The time is the logger's own time function, and the level and the bindings are read
 * on every line, so changes at run time apply. A multistream destination routes each line by the
 * level pino's own write records, so there the line goes through pino.
 */
export function accessLog(logger: Logger): AccessLog {
  const own = logger as unknown as Record<symbol, unknown>;
  const stream = own[pino.symbols.streamSym] as pino.DestinationStream & Record<symbol, unknown>;
  if (stream[Symbol.for('pino.metadata')]) return (fields) => logger.info(fields, 'request');
  const time = own[pino.symbols.timeSym] as () => string;
  const head = `{"level":${logger.levels.values.info}`;
  return (fields) => {
    if (!logger.isLevelEnabled('info')) return;
    const bindings = own[pino.symbols.chindingsSym] as string;
    stream.write(`${head}${time.call(logger)}${bindings},${accessMembers(fields)},"msg":"request"}\n`);
  };
}

/** A logger that writes nothing, for tests and tools. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

import pino from 'pino';
import type { Logger } from 'pino';
import { decimal } from './decimal';

export type { Logger };

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
 * context switches per batch on the gateway's core). pino flushes what is left when the process
 * exits.
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
    destination ?? pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: 100 }),
  );
}

/** The per-request access line's fields, in the order they are written. */
export interface AccessFields {
  req_id: string;
  account_id: string | undefined;
  plan: string | undefined;
  dataset: string;
  status: number;
  code: string;
  duration_ms: number;
  upstream_ms: number | undefined;
  ip: string;
}

export type AccessLog = (fields: AccessFields) => void;

/**
 * Writes the access line to the logger's own destination, as the logger writes
 * `info(fields, 'request')`: {"level":30,<its time>,<bindings>,<fields>,"msg":"request"}, fields
 * left undefined left out. The fields are fixed and never hold a secret, so the line skips the
 * redaction pass, and one JSON.stringify of the fields replaces pino's loop over them (its
 * per-value escaping test, and numbers joined with '+', which fill V8's number-to-string cache: see
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
    const json = JSON.stringify(fields);
    const bindings = own[pino.symbols.chindingsSym] as string;
    stream.write(`${head}${time.call(logger)}${bindings},${json.slice(1, -1)},"msg":"request"}\n`);
  };
}

/** A logger that writes nothing, for tests and tools. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

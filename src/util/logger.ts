import pino from 'pino';
import type { Logger } from 'pino';

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
    { level, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined },
    destination ?? pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: 100 }),
  );
}

/**
 * The logger of the per-request access line. Its fields are fixed (ids, plan, dataset, status,
 * timings, address) and never hold a secret, so it skips the redaction pass, which costs more than
 * the rest of the line.
 */
export function accessLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [] } });
}

/** A logger that writes nothing, for tests and tools. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}

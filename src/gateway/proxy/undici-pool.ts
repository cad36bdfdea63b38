import type { Pool as UndiciPool } from 'undici';

/**
 * undici's Pool alone. Why not `import { Pool } from 'undici'`: the package's index loads every
 * client undici ships (fetch, WebSocket, EventSource, caches, mocks, proxies): 5.0 MB of heap in a
 * fresh process against 1.8 MB for the pool, and every full GC marks all of it. The gateway uses
 * only the pool; the types are the package's own.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const Pool = require('undici/lib/dispatcher/pool') as typeof UndiciPool;
export type Pool = UndiciPool;

/**
 * Node defines `globalThis.Buffer` and `globalThis.process` as getter/setter pairs (so that user
 * code may replace them). A library that reads one of them by its global name then calls the
 * getter on every read: V8's compiled code cannot fold an accessor on the global object into a
 * constant as it does a data property. ioredis reads `Buffer` ≈ 28 times per metered request
 * (≈ 4k instructions, docs/gateway-performance.md, step 33). This makes both plain data
 * properties holding the same values, still writable and configurable, so that replacing them
 * keeps working. Only the entry point calls it: it changes the process, not a module.
 */
export const PLAIN_GLOBALS = ['Buffer', 'process'] as const;

export function makeGlobalsPlain(target: typeof globalThis = globalThis): void {
  for (const name of PLAIN_GLOBALS) {
    const d = Object.getOwnPropertyDescriptor(target, name);
    if (!d?.get || !d.configurable) continue;
    Object.defineProperty(target, name, {
      value: d.get.call(target) as unknown,
      writable: true,
      configurable: true,
      enumerable: d.enumerable ?? false,
    });
  }
}

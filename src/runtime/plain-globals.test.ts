import { createContext, runInContext } from 'node:vm';
import type { Context } from 'node:vm';
import { PLAIN_GLOBALS, makeGlobalsPlain } from './plain-globals';

/**
 * A fresh context's global object, read in that context itself: contextifying a global object
 * again (runInNewContext(code, global)) does not see its properties on newer Node versions.
 */
function freshGlobal(): { context: Context; target: typeof globalThis } {
  const context = createContext();
  return { context, target: runInContext('globalThis', context) as typeof globalThis };
}

/** A global object with node's kind of accessors, so the test leaves the runner's own alone. */
function withAccessors(): { context: Context; target: typeof globalThis; values: Record<string, unknown> } {
  const { context, target } = freshGlobal();
  const values: Record<string, unknown> = { Buffer: Buffer, process: { pid: 1 } };
  for (const name of PLAIN_GLOBALS) {
    Object.defineProperty(target, name, {
      get: () => values[name],
      set: (v: unknown) => {
        values[name] = v;
      },
      configurable: true,
      enumerable: false,
    });
  }
  return { context, target, values };
}

describe('makeGlobalsPlain', () => {
  it('turns the Buffer and process accessors into data properties with the same values', () => {
    const { target, values } = withAccessors();
    makeGlobalsPlain(target);
    for (const name of PLAIN_GLOBALS) {
      const d = Object.getOwnPropertyDescriptor(target, name)!;
      expect('get' in d).toBe(false);
      expect(d.value).toBe(values[name]);
      expect(d).toMatchObject({ writable: true, configurable: true, enumerable: false });
    }
  });

  it('leaves them replaceable, as the setters did', () => {
    const { context, target } = withAccessors();
    makeGlobalsPlain(target);
    const other = { pid: 2 };
    (target as unknown as Record<string, unknown>).process = other;
    expect(runInContext('process', context)).toBe(other);
  });

  it('leaves a global that is already a data property, or cannot be redefined, as it is', () => {
    const { target } = freshGlobal();
    Object.defineProperty(target, 'Buffer', { value: 1, writable: false, configurable: false });
    Object.defineProperty(target, 'process', { get: () => 2, configurable: false });
    makeGlobalsPlain(target);
    expect(Object.getOwnPropertyDescriptor(target, 'Buffer')!.value).toBe(1);
    expect('get' in Object.getOwnPropertyDescriptor(target, 'process')!).toBe(true);
  });
});

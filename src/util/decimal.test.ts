import { decimal } from './decimal';

describe('decimal', () => {
  it('writes every number as String does', () => {
    for (const n of [
      0,
      -0,
      1,
      -1,
      42,
      999_999_999,
      2 ** 31,
      2 ** 53,
      12.3,
      0.1,
      1e21,
      1e-7,
      -5.5,
      NaN,
      Infinity,
      -Infinity,
    ])
      expect(decimal(n)).toBe(String(n));
  });
});

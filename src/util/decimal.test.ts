import { decimal } from './decimal';

describe('decimal', () => {
  it('writes every number as String does', () => {
    for (const n of [
      0,
      -0,
      1,
      -1,
      42,
      999,
      1000,
      1001,
      10_000,
      999_999,
      1_000_000,
      1_000_001,
      999_999_999,
      2 ** 31,
      1_764_244_515_123,
      2 ** 53 - 1,
      -(2 ** 53 - 1),
      2 ** 53,
      12.3,
      0.1,
      1e21,
      1e-7,
      -5.5,
      -1000,
      NaN,
      Infinity,
      -Infinity,
    ])
      expect(decimal(n)).toBe(String(n));
  });

  it('writes whole numbers of every length as String does, zeros inside groups included', () => {
    // Walks every magnitude up to 2^53 with digits that put zeros and nines at group edges.
    for (let digits = 1; digits <= 16; digits++) {
      for (const pattern of ['1', '9', '10', '90', '1009', '99900', '123405060708']) {
        const n = Number(pattern.repeat(16).slice(0, digits));
        if (!Number.isSafeInteger(n)) continue;
        expect(decimal(n)).toBe(String(n));
        expect(decimal(-n)).toBe(String(-n));
        expect(decimal(n + 1)).toBe(String(n + 1));
      }
    }
  });

  it('writes numbers with one decimal, such as durations in tenths of a millisecond, as String does', () => {
    for (let t = 1; t <= 20_000; t++) expect(decimal(t / 10)).toBe(String(t / 10));
    for (const n of [
      Math.round(123_456_789.25 * 10) / 10,
      (2 ** 40 - 1) / 10,
      2 ** 40 - 0.5,
      2 ** 40 + 0.5,
      0.1 + 0.2,
      1 / 3,
      0.05,
      0.15,
      1e-7,
      -12.3,
    ])
      expect(decimal(n)).toBe(String(n));
  });
});

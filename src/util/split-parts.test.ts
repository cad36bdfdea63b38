import { nonEmptyParts } from './split-parts';

describe('nonEmptyParts', () => {
  it('gives what split and a filter of empty parts give', () => {
    for (const [s, sep] of [
      ['', '/'],
      ['/', '/'],
      ['//', '/'],
      ['/v1/legal-documents', '/'],
      ['/v1//legal-documents/', '/'],
      ['v1', '/'],
      ['q=luat&page=1', '&'],
      ['&&q=luat&&page=1&', '&'],
      ['q=a/b', '&'],
    ] as const)
      expect(nonEmptyParts(s, sep)).toEqual(s.split(sep).filter((p) => p !== ''));
  });
});

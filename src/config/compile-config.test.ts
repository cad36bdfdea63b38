import { join } from 'node:path';
import { compileConfig } from './compile-config';
import { loadRawConfig } from './load-config';
import type { RawConfig } from './load-config';

const CONFIG_DIR = join(__dirname, '..', '..', 'config');
const legal = (raw: RawConfig) => raw.datasets.datasets.find((d) => d.path === 'legal-documents')!;
const withRanges = (ranges: { from: string; to: string }[]) => {
  const raw = loadRawConfig(CONFIG_DIR);
  legal(raw).list.ranges = ranges;
  return () => compileConfig(raw);
};

describe('list ranges in datasets.yaml', () => {
  it('compiles the shipped legal-documents range as a date pair', () => {
    const ds = compileConfig(loadRawConfig(CONFIG_DIR)).datasets.get('legal-documents')!;
    expect(ds.ranges).toEqual([{ from: 'issued_from', to: 'issued_to', numeric: false }]);
  });

  it.each([
    [[{ from: 'issued_since', to: 'issued_to' }], /ranges\.0\.from.*"issued_since" is not a declared parameter/],
    [[{ from: 'issued_from', to: 'issued_until' }], /ranges\.0\.to.*"issued_until" is not a declared parameter/],
    [[{ from: 'issued_from', to: 'issued_from' }], /from and to must be two parameters/],
    [[{ from: 'q', to: 'sort' }], /both be date or both be integer/],
    [[{ from: 'issued_from', to: 'type_id' }], /both be date or both be integer/],
  ])('refuses %j at start, naming the entry', (ranges, message) => {
    expect(withRanges(ranges)).toThrow(message);
  });
});

import { accessMembers, inner } from './access-line';
import type { AccessFields } from './access-line';

const fields: AccessFields = {
  req_id: '0b6f3c1e-2f4a-4d7e-9a51-3c2b1d0e9f87',
  account_id: 'acc_7Yq2',
  key_id: 'key_3Fh8',
  plan: 'business',
  dataset: 'admin-units/relations',
  id: 'xa_12',
  status: 422,
  code: 'invalid_request',
  param: 'issued_from',
  duration_ms: 0.4,
  upstream_ms: 3.1,
  upstream_wait_ms: 12,
  ip: '2001:db8::7',
};

const asJson = (f: AccessFields): string => JSON.stringify(f).slice(1, -1);

describe('the access line’s members', () => {
  it('are what JSON.stringify writes for the same fields, in the same order', () => {
    expect(accessMembers(fields)).toBe(asJson(fields));
  });

  it('leave out undefined fields as JSON.stringify does', () => {
    const f = {
      ...fields,
      account_id: undefined,
      key_id: undefined,
      plan: undefined,
      id: undefined,
      param: undefined,
      upstream_ms: undefined,
      upstream_wait_ms: undefined,
    };
    expect(accessMembers(f)).toBe(asJson(f));
  });

  it('write whole, one-decimal and other durations as JSON does', () => {
    for (const duration_ms of [0, 0.1, 7, 12.3, 1234.5, 1 / 3, 1e21, NaN, Infinity]) {
      const f = { ...fields, duration_ms, upstream_ms: duration_ms / 2, upstream_wait_ms: duration_ms * 3 };
      expect(accessMembers(f)).toBe(asJson(f));
    }
  });

  it('escape quotes, backslashes, controls and lone surrogates in any string field', () => {
    for (const s of [
      'a"b',
      'a\\b',
      'line\nbreak',
      'tab\t',
      '\u0000',
      '\u001f',
      '\ud800',
      'x\udfff',
      '😀',
      'Hà Nội',
      '',
    ]) {
      const f = {
        ...fields,
        req_id: s,
        account_id: s,
        key_id: s,
        plan: s,
        dataset: s,
        id: s,
        code: s,
        param: s,
        ip: s,
      };
      expect(accessMembers(f)).toBe(asJson(f));
      expect(`"${inner(s)}"`).toBe(JSON.stringify(s));
    }
  });

  it('parse back to the fields given', () => {
    expect(JSON.parse(`{${accessMembers(fields)}}`)).toEqual(fields);
  });
});

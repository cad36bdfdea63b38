import { decimal } from './decimal';

/** The per-request access line's fields, in the order they are written. */
export interface AccessFields {
  req_id: string;
  account_id: string | undefined;
  /** Which of the account's keys: a leaked key, or the one an allowlist refuses. */
  key_id: string | undefined;
  plan: string | undefined;
  dataset: string;
  /** The record of a detail or sub-resource call (its 404 says which id was unknown). */
  id: string | undefined;
  status: number;
  code: string;
  /** The parameter a 422 names. */
  param: string | undefined;
  duration_ms: number;
  /** The upstream's own time, from the call's turn for a connection. */
  upstream_ms: number | undefined;
  /** Time the call waited in the gateway for one of the upstream's pool_size connections. */
  upstream_wait_ms: number | undefined;
  ip: string;
}

/**
 * The fields as JSON members, without the braces: the text JSON.stringify(fields) writes between
 * them, fields left undefined left out. Written member by member in one template because
 * JSON.stringify walks an object through V8's runtime (≈ 10k instructions for these nine fields,
 * the largest part of the line's cost); strings that need no escaping, all of them in practice, go
 * in as they are.
 */
export function accessMembers(f: AccessFields): string {
  const account = f.account_id === undefined ? '' : `,"account_id":"${inner(f.account_id)}"`;
  const key = f.key_id === undefined ? '' : `,"key_id":"${inner(f.key_id)}"`;
  const plan = f.plan === undefined ? '' : `,"plan":"${inner(f.plan)}"`;
  const id = f.id === undefined ? '' : `,"id":"${inner(f.id)}"`;
  const param = f.param === undefined ? '' : `,"param":"${inner(f.param)}"`;
  const upstream = f.upstream_ms === undefined ? '' : `,"upstream_ms":${jsonNumber(f.upstream_ms)}`;
  const wait =
    f.upstream_wait_ms === undefined ? '' : `,"upstream_wait_ms":${jsonNumber(f.upstream_wait_ms)}`;
  return `"req_id":"${inner(f.req_id)}"${account}${key}${plan},"dataset":"${inner(f.dataset)}"${id},"status":${jsonNumber(f.status)},"code":"${inner(f.code)}"${param},"duration_ms":${jsonNumber(f.duration_ms)}${upstream}${wait},"ip":"${inner(f.ip)}"`;
}

/** A string as JSON writes it between its quotes: as it is unless a character needs escaping. */
export function inner(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // Controls, the quote, the backslash, and surrogates (a lone one is escaped).
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff))
      return JSON.stringify(s).slice(1, -1);
  }
  return s;
}

/** A number as JSON writes it (null when it is not finite), without the number-to-string cache. */
function jsonNumber(n: number): string {
  return Number.isFinite(n) ? decimal(n) : 'null';
}

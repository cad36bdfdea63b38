/** The request headers the gateway reads; each undefined when the request did not send it. */
export interface GatewayHeaders {
  requestId: string | undefined;
  authorization: string | undefined;
  apiKey: string | undefined;
  forwardedFor: string | undefined;
  host: string | undefined;
}

/**
 * The headers the gateway reads, in one pass over `rawHeaders` (name, value, name, value…).
 * Newer Node builds `req.headers` only when it is first read, for every header sent; the gateway
 * needs five. Repeated names get what `req.headers` would give them, but for Authorization: Host
 * keeps its first value, the X- names are joined with ", ", and so is Authorization (node keeps its
 * first; two keys on one request must be refused, not the first one charged).
 */
export function readGatewayHeaders(raw: readonly string[]): GatewayHeaders {
  const out: GatewayHeaders = {
    requestId: undefined,
    authorization: undefined,
    apiKey: undefined,
    forwardedFor: undefined,
    host: undefined,
  };
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    const value = raw[i + 1]!;
    // The length rules out almost every other header before any case-folding.
    switch (name.length) {
      case 4:
        if (out.host === undefined && is(name, 'host')) out.host = value;
        break;
      case 9:
        if (is(name, 'x-api-key')) out.apiKey = join(out.apiKey, value);
        break;
      case 12:
        if (is(name, 'x-request-id')) out.requestId = join(out.requestId, value);
        break;
      case 13:
        // An empty line carries no key: not a second one.
        if (value !== '' && is(name, 'authorization')) out.authorization = join(out.authorization, value);
        break;
      case 15:
        if (is(name, 'x-forwarded-for')) out.forwardedFor = join(out.forwardedFor, value);
        break;
    }
  }
  return out;
}

/** `name` is `lower` in any case. */
function is(name: string, lower: string): boolean {
  return name === lower || name.toLowerCase() === lower;
}

function join(seen: string | undefined, value: string): string {
  return seen === undefined ? value : `${seen}, ${value}`;
}

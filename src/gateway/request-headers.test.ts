import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { readGatewayHeaders } from './request-headers';

// Held to node's own req.headers on real requests (Authorization: req.headersDistinct joined), so
// the rules for repeated names cannot drift.
let server: Server;
let port: number;
let seen: (req: IncomingMessage) => void = () => undefined;
beforeAll(async () => {
  server = createServer((req, res) => {
    seen(req);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** Sends a request head as written and resolves with what the server parsed from it. */
function parsed(headerLines: string[]): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    seen = resolve;
    const socket = connect(port, '127.0.0.1', () => {
      socket.end(['GET / HTTP/1.1', 'Host: x', 'Connection: close', ...headerLines, '', ''].join('\r\n'));
    });
    socket.on('error', reject);
    socket.resume();
  });
}

function asNodeReadsThem(req: IncomingMessage) {
  const one = (name: string) => req.headers[name] as string | undefined;
  return {
    requestId: one('x-request-id'),
    // Authorization on several lines is joined as the X- names are (node keeps the first), its empty
    // lines left out: two keys on one request are refused, not the first charged.
    authorization: req.headersDistinct.authorization?.filter((v) => v !== '').join(', ') || undefined,
    apiKey: one('x-api-key'),
    forwardedFor: one('x-forwarded-for'),
    host: one('host'),
  };
}

const cases: [string, string[]][] = [
  ['none of them', ['Accept: */*']],
  [
    'each once, in the usual case',
    ['Authorization: Bearer a', 'X-Api-Key: k', 'X-Request-Id: r', 'X-Forwarded-For: 1.2.3.4'],
  ],
  [
    'each once, in odd cases',
    ['aUtHoRiZaTiOn: Bearer a', 'x-API-key: k', 'X-REQUEST-ID: r', 'x-Forwarded-FOR: 1.2.3.4'],
  ],
  ['Authorization twice', ['Authorization: Bearer first', 'authorization: Bearer second']],
  ['X-Api-Key twice', ['X-Api-Key: one', 'x-api-key: two']],
  [
    'X-Forwarded-For over three lines',
    ['X-Forwarded-For: 1.1.1.1', 'X-Forwarded-For: 2.2.2.2, 3.3.3.3', 'x-forwarded-for: 4.4.4.4'],
  ],
  ['X-Request-Id twice', ['X-Request-Id: a', 'X-Request-Id: b']],
  ['Host twice', ['host: second']],
  ['empty values', ['X-Api-Key:', 'X-Api-Key: k', 'Authorization:', 'Authorization: Bearer b']],
  ['an empty Authorization alone', ['Authorization:']],
  [
    'names of the same length that are not theirs',
    ['X-Api-Kez: k', 'Authorizatiom: Bearer a', 'X-Request-Ix: r', 'X-Forwarded-Fox: 1.2.3.4'],
  ],
  ['values with spaces around them', ['X-Api-Key:    k   ', 'Authorization:  Bearer   a  ']],
];

describe('readGatewayHeaders', () => {
  it.each(cases)('reads %s as req.headers does', async (_name, lines) => {
    const req = await parsed(lines);
    expect(readGatewayHeaders(req.rawHeaders)).toEqual(asNodeReadsThem(req));
  });

  it('leaves every field undefined for an empty list', () => {
    expect(readGatewayHeaders([])).toEqual({
      requestId: undefined,
      authorization: undefined,
      apiKey: undefined,
      forwardedFor: undefined,
      host: undefined,
    });
  });
});

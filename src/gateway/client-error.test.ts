import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from './client-error';

let server: Server;
let port: number;

beforeAll(async () => {
  server = answerClientErrors(
    createServer(
      { connectionsCheckingInterval: 50, headersTimeout: 200, requestTimeout: 300 },
      (_req, res) => {
        res
          .writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 16 })
          .end('{"success":true}');
      },
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Writes raw bytes on a new connection and returns everything the server sent before it closed. */
function exchange(raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (got += chunk));
    socket.on('close', () => resolve(got));
    socket.on('error', reject);
    socket.write(raw);
  });
}

interface Parsed {
  status: number;
  headers: Map<string, string>;
  body: unknown;
}

function parse(raw: string): Parsed {
  const [head, body] = [raw.slice(0, raw.indexOf('\r\n\r\n')), raw.slice(raw.indexOf('\r\n\r\n') + 4)];
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) };
}

function expectEnvelope(res: Parsed, message: string): void {
  expect(res.status).toBe(422);
  expect(res.body).toEqual({ success: false, code: 'invalid_request', message });
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(res.headers.get('connection')).toBe('close');
  expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(JSON.stringify(res.body)));
}

describe('requests the HTTP parser rejects', () => {
  it('a well-formed request still reaches the app', async () => {
    const res = parse(await exchange('GET /v1/me HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    expect(res.status).toBe(200);
  });

  it('a URL longer than the parser takes gets 422 invalid_request in the envelope, with a request id', async () => {
    const res = parse(
      await exchange(`GET /v1/legal-documents?q=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
    );
    expectEnvelope(res, 'URL hoặc tiêu đề HTTP quá dài.');
  });

  it('a header longer than the parser takes gets the same answer', async () => {
    const res = parse(
      await exchange(`GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Foo: ${'b'.repeat(17_000)}\r\n\r\n`),
    );
    expectEnvelope(res, 'URL hoặc tiêu đề HTTP quá dài.');
  });

  it('a header line without a colon gets 422 invalid_request for a malformed request', async () => {
    const res = parse(await exchange('GET /v1/me HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'));
    expectEnvelope(res, 'Yêu cầu HTTP không đúng định dạng.');
  });

  it('a request target with a space in it gets the same answer', async () => {
    const res = parse(await exchange('GET /v1/legal documents HTTP/1.1\r\nHost: x\r\n\r\n'));
    expectEnvelope(res, 'Yêu cầu HTTP không đúng định dạng.');
  });

  it('a request that never finishes its headers is closed without an answer', async () => {
    expect(await exchange('GET /v1/me HTTP/1.1\r\nHost: x\r\n')).toBe('');
  });
});

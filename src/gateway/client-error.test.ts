import { createServer } from 'node:http';
import type { Server, ServerOptions } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { answerClientErrors } from './client-error';

let server: Server;
let port: number;
// Without the short timeouts: where an answer is held back on purpose, a pause of the test
// process must not let the connection checker close the connection first.
let patient: Server;
let patientPort: number;

/** The app's stand-in behind answerClientErrors, with the server's timeouts given. */
function serve(timeouts: ServerOptions): Server {
  return answerClientErrors(
    createServer(timeouts, (req, res) => {
      // /slow/… stands for a request still waiting on its upstream when the next bytes come.
      const body = JSON.stringify({ success: true, url: req.url });
      const answer = () =>
        res
          .writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) })
          .end(body);
      if (req.url?.startsWith('/slow/')) setTimeout(answer, 150);
      // /read/… waits for the whole body, as the admin API's JSON parser does.
      else if (req.url?.startsWith('/read/')) req.on('end', answer).resume();
      // /begun/… starts its answer at once and ends it when the body has come.
      else if (req.url?.startsWith('/begun/')) {
        res.writeHead(200, {
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body),
        });
        res.write(body.slice(0, 5));
        req.on('end', () => res.end(body.slice(5))).resume();
      } else answer();
    }),
  );
}

async function listen(s: Server): Promise<number> {
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return (s.address() as AddressInfo).port;
}

beforeAll(async () => {
  server = serve({ connectionsCheckingInterval: 50, headersTimeout: 200, requestTimeout: 300 });
  patient = serve({ connectionsCheckingInterval: 1_000, headersTimeout: 60_000, requestTimeout: 60_000 });
  [port, patientPort] = await Promise.all([listen(server), listen(patient)]);
});

afterAll(async () => {
  for (const s of [server, patient]) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
});

/** Writes raw bytes on a new connection and returns everything the server sent before it closed. */
function exchange(raw: string, at = port): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(at, '127.0.0.1');
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

/** Every response on a connection, in the order they came (each framed by its Content-Length). */
function parseAll(raw: string): Parsed[] {
  const out: Parsed[] = [];
  let rest = Buffer.from(raw);
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.subarray(0, end).toString().split('\r\n');
    const headers = new Map(
      lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    const length = Number(headers.get('content-length'));
    const body = rest.subarray(end + 4, end + 4 + length).toString();
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) });
    rest = rest.subarray(end + 4 + length);
  }
  return out;
}

function parse(raw: string): Parsed {
  const all = parseAll(raw);
  expect(all).toHaveLength(1);
  return all[0]!;
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

  it('a request target with a space or unencoded Vietnamese in it is told to percent-encode it', async () => {
    const hint =
      'URL chứa dấu cách hoặc ký tự ngoài ASCII chưa mã hoá phần trăm (percent-encoding), ví dụ ' +
      'q=lu%E1%BA%ADt%20%C4%91%E1%BA%A5t cho q=luật đất.';
    expectEnvelope(parse(await exchange('GET /v1/legal documents HTTP/1.1\r\nHost: x\r\n\r\n')), hint);
    expectEnvelope(parse(await exchange('GET /v1/legal-documents?q=luật HTTP/1.1\r\nHost: x\r\n\r\n')), hint);
    expectEnvelope(
      parse(await exchange('GET /v1/legal-documents?q=luật đất HTTP/1.1\r\nHost: x\r\n\r\n')),
      hint,
    );
    // After a request served whole on the connection, the line that failed is the one read.
    const [first, second] = parseAll(
      await exchange('GET /v1/me HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/a?q=đất HTTP/1.1\r\nHost: x\r\n\r\n'),
    );
    expect(first!.status).toBe(200);
    expectEnvelope(second!, hint);
  });

  it('requests accepted before a malformed one on the connection are answered first, in order, and the 422 last', async () => {
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
    const raw =
      get('/slow/1') +
      get('/slow/2') +
      `GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Foo: ${'b'.repeat(17_000)}\r\n\r\n`;
    const [first, second, last, ...more] = parseAll(await exchange(raw, patientPort));
    expect([first?.status, first?.body, second?.status, second?.body, more]).toEqual([
      200,
      { success: true, url: '/slow/1' },
      200,
      { success: true, url: '/slow/2' },
      [],
    ]);
    expectEnvelope(last!, 'URL hoặc tiêu đề HTTP quá dài.');
  });

  it('a request whose own body framing fails is not waited for: its body never ends, and the 422 comes at once', async () => {
    const started = Date.now();
    const raw = 'POST /read/body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n\r\n';
    expectEnvelope(parse(await exchange(raw)), 'Yêu cầu HTTP không đúng định dạng.');
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('never writes the 422 into an answer already begun: the connection is closed instead', async () => {
    // The broken chunk is sent once the answer has begun.
    const got = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let seen = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        if (seen === '') socket.write('ZZ\r\n\r\n');
        seen += chunk;
      });
      socket.on('close', () => resolve(seen));
      socket.on('error', reject);
      socket.write('POST /begun/body HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    });
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(got).not.toContain('invalid_request');
  });

  it('CONNECT after a request still in flight on the connection comes after its answer', async () => {
    const raw =
      'GET /slow/c HTTP/1.1\r\nHost: x\r\n\r\nCONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n';
    const [answer, refusal, ...more] = parseAll(await exchange(raw, patientPort));
    expect([answer?.status, answer?.body, refusal?.status, more]).toEqual([
      200,
      { success: true, url: '/slow/c' },
      405,
      [],
    ]);
  });

  it('an Expect other than 100-continue is served as any request, not answered with a bare 417', async () => {
    const res = parse(
      await exchange('GET /v1/me HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\nConnection: close\r\n\r\n'),
    );
    expect([res.status, res.body]).toEqual([200, { success: true, url: '/v1/me' }]);
  });

  it('CONNECT gets 405 method_not_allowed in the envelope, as every method but GET', async () => {
    const res = parse(await exchange('CONNECT 127.0.0.1:443 HTTP/1.1\r\nHost: 127.0.0.1:443\r\n\r\n'));
    expect([
      res.status,
      res.body,
      res.headers.get('allow'),
      res.headers.get('x-content-type-options'),
    ]).toEqual([
      405,
      { success: false, code: 'method_not_allowed', message: 'Chỉ hỗ trợ phương thức GET.' },
      'GET',
      'nosniff',
    ]);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a request that never finishes its headers is closed without an answer', async () => {
    expect(await exchange('GET /v1/me HTTP/1.1\r\nHost: x\r\n')).toBe('');
  });
});

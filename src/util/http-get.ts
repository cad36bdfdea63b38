import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface GetReply {
  status: number;
  /** A 2xx status. */
  ok: boolean;
  body: string;
}

/**
 * One GET under a deadline, its body read as text (at most maxBytes, or it fails). For the
 * gateway's background calls to its upstreams (health, dataset sizes): node's own client, loaded
 * for the servers anyway, where the global fetch would load node's bundled copy of undici (≈ 1.2 MB
 * more heap for every full GC to mark) for a call every few seconds.
 */
export function httpGet(
  url: URL,
  timeoutMs: number,
  maxBytes = 65_536,
  headers: Record<string, string> = {},
): Promise<GetReply> {
  return new Promise((resolve, rejectWith) => {
    // The deadline's abort reads "The operation was aborted": said as what it is.
    const reject = (err: Error): void =>
      rejectWith(err.name === 'AbortError' ? new Error(`no answer within ${timeoutMs} ms`) : err);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    // A connection per call (agent: false): a socket kept between calls seconds apart would meet the
    // upstream's keep-alive timeout now and then, and a reset health check reads as an upstream down.
    // DESIGN §4: every gateway → upstream request carries a request id, these too (an upstream's
    // access log then has one on every line).
    const options = {
      method: 'GET',
      agent: false,
      headers: { 'X-Request-Id': randomUUID(), ...headers },
      signal: AbortSignal.timeout(timeoutMs),
    };
    const req = send(url, options, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= maxBytes) return void chunks.push(chunk);
        reject(new Error(`answer over ${maxBytes} bytes`));
        res.destroy();
      });
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        resolve({ status, ok: status >= 200 && status < 300, body: Buffer.concat(chunks).toString('utf8') });
      });
      // A deadline or a reset after the headers ends here.
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

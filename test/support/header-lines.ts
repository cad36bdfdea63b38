import { createServer, get } from 'node:http';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LinesAnswer {
  status: number;
  body: { code?: string; message?: string };
}

/**
 * GETs `path` from the listener with each header sent as the given lines, one line per value
 * (node's client writes an array value that way): repeated header lines, which supertest's types
 * do not offer.
 */
export async function getWithHeaderLines(
  app: RequestListener,
  path: string,
  headers: Record<string, string[]>,
): Promise<LinesAnswer> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<LinesAnswer>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as LinesAnswer['body'] }),
        );
        res.on('error', reject);
      }).on('error', reject);
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

import { z } from 'zod';

/** How long the gateway waits for an upstream unless upstreams.yaml says (an upstream process's QUERY_TIMEOUT_MS too). */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 5000;

export const upstreamSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      // zod runs this after its own check failed too: a URL node cannot read (port 99999, no
      // host) is named here instead of throwing out of the parse.
      .superRefine((u, ctx) => {
        if (!URL.canParse(u)) return ctx.addIssue({ code: 'custom', message: 'Invalid URL' });
        const url = new URL(u);
        if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '')
          ctx.addIssue({
            code: 'custom',
            message:
              'an upstream URL is a scheme, host, port and optional base path: no credentials, query or fragment (they would be dropped)',
          });
      })
      .describe('Base URL of the upstream service; a base path, if any, prefixes every request, health checks included.'),
    timeout_ms: z.number().int().min(50).max(120_000).default(DEFAULT_UPSTREAM_TIMEOUT_MS).describe('Per-request timeout.'),
    pool_size: z.number().int().min(1).max(4096).default(64).describe('Keep-alive sockets kept per upstream.'),
  })
  .strict();

export const upstreamsFileSchema = z
  .object({
    upstreams: z.record(
      z.string().regex(/^[a-z][a-z0-9-]{0,62}$/, 'an upstream name is lowercase letters, digits and "-", starting with a letter'),
      upstreamSchema,
    ),
  })
  .strict();

export type UpstreamConfig = z.infer<typeof upstreamSchema>;

/** The base path of an upstream's URL, without a trailing "/": what every request path goes under. */
export const upstreamBasePath = (url: URL): string => url.pathname.replace(/\/+$/, '');

/** An upstream's own path (`/healthz`, `/legal-documents/_stats`) under its URL's base path. */
export function upstreamUrl(base: string, path: string): URL {
  const url = new URL(base);
  return new URL(upstreamBasePath(url) + path, url.origin);
}
export type UpstreamsFile = z.infer<typeof upstreamsFileSchema>;

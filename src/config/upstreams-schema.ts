import { z } from 'zod';

export const upstreamSchema = z
  .object({
    url: z.url({ protocol: /^https?$/ }).describe('Base URL of the upstream service.'),
    timeout_ms: z.number().int().min(50).max(120_000).default(5000).describe('Per-request timeout.'),
    pool_size: z.number().int().min(1).max(4096).default(64).describe('Keep-alive sockets kept per upstream.'),
  })
  .strict();

export const upstreamsFileSchema = z
  .object({
    upstreams: z.record(z.string().regex(/^[a-z][a-z0-9-]{0,62}$/), upstreamSchema),
  })
  .strict();

export type UpstreamConfig = z.infer<typeof upstreamSchema>;
export type UpstreamsFile = z.infer<typeof upstreamsFileSchema>;

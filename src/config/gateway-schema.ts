import { z } from 'zod';

export const gatewayFileSchema = z
  .object({
    port: z.number().int().min(0).max(65535).default(8080).describe('Public port (PORT overrides).'),
    admin_port: z.number().int().min(0).max(65535).default(9090).describe('Admin port (ADMIN_PORT overrides).'),
    trusted_proxies: z
      .array(z.string().min(1))
      .default(['loopback'])
      .describe('Peers whose X-Forwarded-For is believed: CIDRs, addresses, or loopback / private / uniquelocal.'),
    store_failure: z.enum(['open', 'closed']).default('open').describe('When Redis is unreachable: local limits, or 503.'),
    preview_chars: z.number().int().min(0).max(100_000).default(800).describe('Text length of the content_html preview.'),
    bulk_watch: z
      .object({
        window_days: z.number().int().min(1).max(366).default(30),
        max_share: z.number().gt(0).max(1).default(0.05),
        min_records: z.number().int().min(1).default(500),
        lock_hours: z.number().gt(0).max(24 * 365).default(24),
        stats_refresh_seconds: z.number().int().min(1).default(600),
      })
      .strict()
      .prefault({})
      .describe('Bulk-extraction detection thresholds.'),
    identity: z
      .object({
        issuer: z.string().default('lookup-gateway'),
        audience: z.string().default('lookup-upstream'),
        ttl_seconds: z.number().int().min(10).max(3600).default(120),
      })
      .strict()
      .prefault({})
      .describe('Identity assertion the gateway signs for upstreams.'),
    key_cache: z
      .object({
        ttl_seconds: z.number().int().min(1).max(86_400).default(300),
        negative_ttl_seconds: z.number().int().min(0).max(3600).default(5),
        max_entries: z.number().int().min(100).default(100_000),
      })
      .strict()
      .prefault({}),
    shutdown_timeout_ms: z.number().int().min(0).max(600_000).default(10_000),
    max_url_length: z.number().int().min(256).max(65_536).default(4096),
  })
  .strict();

export type GatewayFile = z.infer<typeof gatewayFileSchema>;

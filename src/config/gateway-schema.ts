import { z } from 'zod';

export const gatewayFileSchema = z
  .object({
    port: z.number().int().min(0).max(65535).default(8080).describe('Public port (PORT overrides).'),
    admin_port: z.number().int().min(0).max(65535).default(9090).describe('Admin port (ADMIN_PORT overrides).'),
    trusted_proxies: z
      .array(z.string().min(1))
      .max(1000)
      .default(['loopback'])
      .describe('Peers whose X-Forwarded-For is believed: CIDRs, addresses, or loopback / private / uniquelocal.'),
    store_failure: z.enum(['open', 'closed']).default('open').describe('When Redis is unreachable: local limits, or 503.'),
    store_timeout_ms: z
      .number()
      .int()
      .min(20)
      .max(10_000)
      .default(500)
      .describe('A Redis command not answered in this time fails, and store_failure applies (read at start).'),
    database_timeout_ms: z
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(5_000)
      .describe(
        "Each wait of the gateway's on the database (a connection; a statement of a key lookup, a credit spend, the admin API) fails after this: 503 search_unavailable (service_unavailable on the admin API; read at start).",
      ),
    preview_chars: z.number().int().min(0).max(100_000).default(800).describe('Most characters of text in a preview (content_html for Free); a shorter text shows its first half.'),
    bulk_watch: z
      .object({
        window_days: z.number().int().min(1).max(366).default(30).describe('Days of distinct ids counted per account.'),
        max_share: z.number().gt(0).max(1).default(0.05).describe('Share of a dataset that locks the account.'),
        min_records: z.number().int().min(1).max(1e9).default(500).describe('Distinct ids below which no share locks.'),
        lock_hours: z.number().gt(0).max(24 * 365).default(24).describe('How long a bulk-extraction lock lasts.'),
        stats_refresh_seconds: z.number().int().min(1).max(86_400).default(600).describe('How often dataset sizes are re-read.'),
      })
      .strict()
      .prefault({})
      .describe('Bulk-extraction detection thresholds.'),
    identity: z
      .object({
        issuer: z.string().min(1).default('lookup-gateway').describe('iss of the assertion.'),
        audience: z.string().min(1).default('lookup-upstream').describe('aud the upstreams check.'),
        ttl_seconds: z.number().int().min(10).max(3600).default(120).describe('Lifetime of one assertion.'),
      })
      .strict()
      .prefault({})
      .describe('Identity assertion the gateway signs for upstreams.'),
    key_cache: z
      .object({
        ttl_seconds: z.number().int().min(1).max(86_400).default(300).describe('How long a known key is kept.'),
        negative_ttl_seconds: z.number().int().min(0).max(3600).default(5).describe('How long an unknown key is remembered.'),
        max_entries: z.number().int().min(100).max(10_000_000).default(100_000).describe('Keys kept at most.'),
      })
      .strict()
      .prefault({})
      .describe('Key lookups cached per replica; revocations reach them through the invalidation bus.'),
    shutdown_timeout_ms: z
      .number()
      .int()
      .min(0)
      .max(600_000)
      .default(10_000)
      .describe('On SIGTERM, how long open requests may finish before their connections close.'),
    upstream_memory_mb: z
      .number()
      .int()
      .min(16)
      .max(65_536)
      .default(64)
      .describe(
        "Upstream answers held in memory at once, all upstreams together, in MB of their bytes, each from its first byte until it has been reshaped (parsed, it takes 2-4 times that); an answer that would pass it gets 503 search_unavailable instead of the process outgrowing its memory limit.",
      ),
    max_url_length: z.number().int().min(256).max(65_536).default(4096).describe('Longer request targets get 422.'),
  })
  .strict();

export type GatewayFile = z.infer<typeof gatewayFileSchema>;

import type { AccountRepo } from './account-repo';
import type { ApiKeyRecord } from './account-types';
import { generateApiKey, hashApiKey, newId } from './api-keys';

export interface IssuedKey {
  /** The key itself: shown to its owner once, never stored. */
  key: string;
  keyHash: string;
  record: ApiKeyRecord;
}

/** A new key for an account: only its SHA-256 hash and a display prefix are stored. */
export async function issueKey(
  repo: AccountRepo,
  accountId: string,
  opts: { ipAllowlist?: string[]; expiresAt?: number | null } = {},
): Promise<IssuedKey> {
  const key = generateApiKey();
  const keyHash = hashApiKey(key);
  const record = await repo.createKey({
    id: newId('key_'),
    account_id: accountId,
    key_hash: keyHash,
    key_prefix: key.slice(0, 10),
    ip_allowlist: opts.ipAllowlist ?? [],
    expires_at: opts.expiresAt ?? null,
  });
  return { key, keyHash, record };
}

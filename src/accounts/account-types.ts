export interface Account {
  id: string;
  email: string;
  plan: string;
  email_verified: boolean;
  /** Epoch ms until which the API is locked, or null. */
  restricted_until: number | null;
  created_at: number;
}

export interface ApiKeyRecord {
  id: string;
  account_id: string;
  key_prefix: string;
  ip_allowlist: string[];
  expires_at: number | null;
  revoked_at: number | null;
  created_at: number;
}

export interface AccountPatch {
  plan?: string;
  email_verified?: boolean;
  restricted_until?: number | null;
}

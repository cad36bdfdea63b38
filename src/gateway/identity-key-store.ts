import type { JWK } from 'jose';
import type { Db } from '../db/db';

/** The identity-assertion key pair as JWKs, and the key id tokens name it by. */
export interface StoredSigningKey {
  kid: string;
  privateJwk: JWK;
  publicJwk: JWK;
}

/** Where the replicas of one deployment keep the one key they all sign with. */
export interface SigningKeyStore {
  /** The stored key; when there is none yet, `make`'s, unless another replica stored its own first. */
  loadOrCreate(make: () => Promise<StoredSigningKey>): Promise<StoredSigningKey>;
}

interface Row {
  kid: string;
  private_jwk: string;
  public_jwk: string;
}

/** SigningKeyStore over migrations/gateway/003_identity_key.sql; the same SQL on PostgreSQL and PGlite. */
export class SqlSigningKeyStore implements SigningKeyStore {
  constructor(private readonly db: Db) {}

  async loadOrCreate(make: () => Promise<StoredSigningKey>): Promise<StoredSigningKey> {
    const found = await this.read();
    if (found) return found;
    const made = await make();
    await this.db.query(
      `INSERT INTO identity_signing_key (id, kid, private_jwk, public_jwk) VALUES ('current', $1, $2, $3)
       ON CONFLICT (id) DO NOTHING`,
      [made.kid, JSON.stringify(made.privateJwk), JSON.stringify(made.publicJwk)],
    );
    // Replicas starting together may each have made one: every one of them uses the row that won.
    const stored = await this.read();
    if (!stored) throw new Error('identity signing key was not stored');
    return stored;
  }

  private async read(): Promise<StoredSigningKey | undefined> {
    const { rows } = await this.db.query<Row>(
      `SELECT kid, private_jwk, public_jwk FROM identity_signing_key WHERE id = 'current'`,
    );
    const row = rows[0];
    if (!row) return undefined;
    return {
      kid: row.kid,
      privateJwk: JSON.parse(row.private_jwk) as JWK,
      publicJwk: JSON.parse(row.public_jwk) as JWK,
    };
  }
}

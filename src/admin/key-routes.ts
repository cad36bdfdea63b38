import { Router } from 'express';
import { issueKey } from '../accounts/issue-key';
import { planLabel } from '../config/plan-label';
import { ApiError } from '../errors/api-error';
import { isoOrNull } from '../util/iso-time';
import { createKeyBodyIn } from './admin-schemas';
import { canBeStored, parse } from './admin-kit';
import type { AdminKit } from './admin-kit';

/** POST and GET /accounts/{id}/keys, DELETE /keys/{id} (DESIGN §6). */
export function keyRoutes(kit: AdminKit): Router {
  const { deps, account, tell } = kit;
  const r = Router();
  r.post('/accounts/:id/keys', async (req, res) => {
    const body = parse(createKeyBodyIn(deps.config().raw.plans.timezone), req.body);
    // A key born expired answers every call with 401: an operator's typo, not a key to hand out.
    if (body.expires_at != null && body.expires_at <= deps.clock.now()) {
      throw new ApiError('invalid_request', { message: 'expires_at: phải là một thời điểm trong tương lai' });
    }
    const a = await account(req.params.id);
    const p = deps.config().plans.get(a.plan);
    if (body.ip_allowlist.length > 0 && !p?.ip_allowlist) {
      throw new ApiError('plan_required', {
        message: `Gói ${planLabel(a.plan)} không hỗ trợ giới hạn key theo địa chỉ IP.`,
        upgrade_url: deps.config().raw.plans.upgrade_url,
      });
    }
    const {
      key,
      keyHash,
      record: rec,
    } = await issueKey(deps.accounts, a.id, {
      ipAllowlist: body.ip_allowlist.map((s) => s.trim()),
      expiresAt: body.expires_at ?? null,
    });
    await tell({ type: 'key', keyHash });
    res
      .status(201)
      .json({ id: rec.id, key, expires_at: isoOrNull(rec.expires_at), ip_allowlist: rec.ip_allowlist });
  });

  r.get('/accounts/:id/keys', async (req, res) => {
    const a = await account(req.params.id);
    const keys = await deps.accounts.listKeys(a.id);
    res.json(
      keys.map((k) => ({
        id: k.id,
        prefix: k.key_prefix,
        expires_at: isoOrNull(k.expires_at),
        ip_allowlist: k.ip_allowlist,
        revoked_at: isoOrNull(k.revoked_at),
        created_at: isoOrNull(k.created_at),
      })),
    );
  });

  r.delete('/keys/:id', async (req, res) => {
    const r = canBeStored(req.params.id) ? await deps.accounts.revokeKey(req.params.id) : undefined;
    if (!r) throw new ApiError('not_found', { message: 'Không tìm thấy key.' });
    await tell({ type: 'key', keyHash: r.key_hash });
    res.json({ id: r.key.id, revoked_at: isoOrNull(r.key.revoked_at) });
  });
  return r;
}

import { Router } from 'express';
import { planLabel } from '../config/plan-label';
import { ApiError } from '../errors/api-error';
import { creditsBody } from './admin-schemas';
import { parse } from './admin-kit';
import type { AdminKit } from './admin-kit';

/** POST /accounts/{id}/credits (DESIGN §6): idempotent per reference. */
export function creditRoutes(kit: AdminKit): Router {
  const { deps, account } = kit;
  const r = Router();
  r.post('/accounts/:id/credits', async (req, res) => {
    const body = parse(creditsBody, req.body);
    const a = await account(req.params.id);
    let r;
    if (deps.config().plans.get(a.plan)?.extra_credits) {
      r = await deps.credits.purchase(a.id, body.amount, body.reference);
    } else {
      // A billing system retrying a purchase made before a downgrade gets the retry's answer.
      const prior = await deps.credits.purchased(a.id, body.reference);
      if (!prior)
        throw new ApiError('plan_required', {
          message: `Gói ${planLabel(a.plan)} không mua thêm lượt gọi (extra credits).`,
          upgrade_url: deps.config().raw.plans.upgrade_url,
        });
      r = { balance: prior.balance, applied: false, appliedAmount: prior.amount };
    }
    // The same reference again is a retry; with another amount it is a mistake to say so, not
    // a success that added nothing.
    if (!r.applied && r.appliedAmount !== body.amount) {
      throw new ApiError('conflict', {
        message: `Mã tham chiếu ${body.reference} đã được dùng cho ${r.appliedAmount} lượt gọi, không phải ${body.amount}.`,
      });
    }
    // DESIGN §6 calls the result the balance; extra_credits is the name the account and /v1/me give it.
    res.json({ account_id: a.id, balance: r.balance, extra_credits: r.balance, applied: r.applied });
  });
  return r;
}

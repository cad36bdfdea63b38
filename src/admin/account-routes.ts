import { Router } from 'express';
import { newId } from '../accounts/api-keys';
import { ApiError } from '../errors/api-error';
import { computeWindows } from '../metering/windows';
import { createAccountBody, findAccountQuery, patchAccountBodyIn } from './admin-schemas';
import { parse } from './admin-kit';
import type { AdminKit } from './admin-kit';

/** POST /accounts, GET and PATCH /accounts/{id} (DESIGN §6), and GET /accounts?email= to find one. */
export function accountRoutes(kit: AdminKit): Router {
  const { deps, account, accountByEmail, view, plan, changed } = kit;
  const r = Router();
  r.post('/accounts', async (req, res) => {
    const body = parse(createAccountBody, req.body);
    plan(body.plan);
    const created = await deps.accounts
      .createAccount({
        id: newId('acc_'),
        email: body.email,
        plan: body.plan,
        email_verified: body.email_verified,
      })
      .catch((err: { code?: string }) => {
        if (err.code === '23505') throw new ApiError('conflict', { message: 'Email đã được đăng ký.' });
        throw err;
      });
    res.status(201).json(await view(created));
  });

  // A registration system whose POST timed out reads the 409 of its retry, then finds what it made.
  r.get('/accounts', async (req, res) => {
    const { email } = parse(findAccountQuery, req.query);
    res.json(await view(await accountByEmail(email)));
  });

  r.get('/accounts/:id', async (req, res) => {
    const a = await account(req.params.id);
    const windows = computeWindows(deps.clock.now(), deps.config().raw.plans.timezone);
    const usage = await deps.meter.peek(a.id, windows).catch(() => null);
    const keys = await deps.accounts.listKeys(a.id);
    res.json({
      ...(await view(a)),
      usage: usage && {
        month: windows.monthKey,
        day: windows.dayKey,
        monthly_used: usage.monthly,
        daily_used: usage.daily,
        per_minute_used: usage.minute,
        full_text_used_today: usage.fullText,
      },
      keys: keys.length,
      ...(deps.accountDetails ? await deps.accountDetails(a) : {}),
    });
  });

  r.patch('/accounts/:id', async (req, res) => {
    const body = parse(patchAccountBodyIn(deps.config().raw.plans.timezone), req.body);
    if (body.plan !== undefined) plan(body.plan);
    await account(req.params.id);
    const unlocks =
      body.restricted_until === null ||
      (body.restricted_until !== undefined && body.restricted_until <= deps.clock.now());
    // Before the lock is lifted: a recording in between would otherwise lock the account again.
    if (unlocks && deps.beforeUnlock) {
      // The unlock goes ahead without it (the account may then lock again): access first.
      await deps
        .beforeUnlock(req.params.id)
        .catch((err: unknown) =>
          deps.logger.warn(
            { err, account_id: req.params.id },
            'could not clear the bulk watch before an unlock',
          ),
        );
    }
    const a = (await deps.accounts.patchAccount(req.params.id, body))!;
    await changed(a.id);
    deps.logger.info({ account_id: a.id, change: Object.keys(body) }, 'account changed');
    res.json(await view(a));
  });
  return r;
}

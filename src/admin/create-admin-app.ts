import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { ZodType } from 'zod';
import type { AccountRepo } from '../accounts/account-repo';
import type { Account } from '../accounts/account-types';
import { newId } from '../accounts/api-keys';
import { issueKey } from '../accounts/issue-key';
import type { RuntimeConfig } from '../config/compile-config';
import { ApiError } from '../errors/api-error';
import { renderError, toApiError } from '../errors/render-error';
import type { CreditLedger } from '../metering/credit-ledger';
import type { MeterStore } from '../metering/meter-store';
import { computeWindows } from '../metering/windows';
import type { InvalidationBus, InvalidationMessage } from '../stores/invalidation-bus';
import type { Clock } from '../util/clock';
import type { Logger } from '../util/logger';
import type { AdminVerifier } from './admin-auth';
import { createAccountBody, createKeyBody, creditsBody, patchAccountBody } from './admin-schemas';
import { requestError } from './request-errors';
import { isoOrNull } from '../util/iso-time';
import { planLabel } from '../config/plan-label';

export interface AdminDeps {
  config: () => RuntimeConfig;
  accounts: AccountRepo;
  credits: CreditLedger;
  meter: MeterStore;
  bus: InvalidationBus;
  clock: Clock;
  logger: Logger;
  verify: AdminVerifier;
  /** Extra read-only sections of GET /admin/accounts/{id} (e.g. bulk-extraction shares). */
  accountDetails?: (account: Account) => Promise<Record<string, unknown>>;
  /** Called before an admin lifts an account's lock (e.g. the bulk watch forgets what led to it). */
  beforeUnlock?: (accountId: string) => Promise<void>;
}

function parse<T>(schema: ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body ?? {});
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new ApiError('invalid_request', { message: `${i.path.join('.') || 'body'}: ${i.message}` });
  }
  return r.data;
}

const BODY_LIMIT = '64kb';

/** The admin API of DESIGN §6, on the admin port only; the billing system drives accounts through it. */
export function createAdminApp(deps: AdminDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Answers carry new API keys and account data: no cache between here and the operator keeps them.
  app.use((_req, res, next) => {
    res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    next();
  });
  app.set('etag', false);
  const account = async (id: string): Promise<Account> => {
    const a = await deps.accounts.getAccount(id);
    if (!a) throw new ApiError('not_found', { message: 'Không tìm thấy tài khoản.' });
    return a;
  };
  const view = async (a: Account) => ({
    id: a.id,
    email: a.email,
    plan: a.plan,
    email_verified: a.email_verified,
    extra_credits: await deps.credits.balance(a.id),
    restricted_until: isoOrNull(a.restricted_until),
    created_at: isoOrNull(a.created_at),
  });
  const plan = (name: string) => {
    const p = deps.config().plans.get(name);
    if (!p) throw new ApiError('invalid_request', { message: `plan: không có gói "${name}"` });
    return p;
  };
  // The change is stored by then: a bus that cannot publish (Redis down) must not turn it into a 500
  // that a billing system retries. This replica applies it at once; a replica whose own pub/sub is
  // down keeps cached entries at most a second.
  const tell = (msg: InvalidationMessage) =>
    deps.bus
      .publish(msg)
      .catch((err: unknown) =>
        deps.logger.warn({ err, change: msg.type }, 'change stored but not published to other replicas'),
      );
  const changed = (accountId: string) => tell({ type: 'account', accountId });

  const admin = express.Router();
  admin.use(async (req, _res, next) => {
    await deps.verify(req.headers.authorization);
    next();
  });
  admin.use(express.json({ limit: BODY_LIMIT }));
  // A body of another type is left unread, and the schema would then say every field is missing.
  admin.use((req, _res, next) => {
    const sent =
      req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
    if (sent && req.body === undefined)
      throw new ApiError('invalid_request', {
        message: 'Nội dung yêu cầu phải là JSON (Content-Type: application/json).',
      });
    next();
  });

  admin.post('/accounts', async (req, res) => {
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

  admin.get('/accounts/:id', async (req, res) => {
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

  admin.patch('/accounts/:id', async (req, res) => {
    const body = parse(patchAccountBody, req.body);
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

  admin.post('/accounts/:id/keys', async (req, res) => {
    const body = parse(createKeyBody, req.body);
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

  admin.get('/accounts/:id/keys', async (req, res) => {
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

  admin.delete('/keys/:id', async (req, res) => {
    const r = await deps.accounts.revokeKey(req.params.id);
    if (!r) throw new ApiError('not_found', { message: 'Không tìm thấy key.' });
    await tell({ type: 'key', keyHash: r.key_hash });
    res.json({ id: r.key.id, revoked_at: isoOrNull(r.key.revoked_at) });
  });

  admin.post('/accounts/:id/credits', async (req, res) => {
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
    res.json({ account_id: a.id, extra_credits: r.balance, applied: r.applied });
  });

  app.use('/admin', admin);
  app.use((_req, _res, next) => next(new ApiError('not_found')));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = requestError(err, BODY_LIMIT) ?? toApiError(err);
    if (e.code === 'internal_error') deps.logger.error({ err }, 'admin API error');
    else if (e.code === 'service_unavailable')
      deps.logger.warn({ err: (err as Error).message }, 'database unavailable');
    renderError(res, e);
  });
  return app;
}

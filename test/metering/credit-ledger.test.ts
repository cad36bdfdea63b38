import { DatabaseUnavailableError } from '../../src/db/db';
import type { Db } from '../../src/db/db';
import { migrate } from '../../src/db/migrate';
import { SqlCreditLedger } from '../../src/metering/credit-ledger';
import { TEST_DATABASES } from '../support/databases';

describe.each(TEST_DATABASES)('SqlCreditLedger on $name', (testDb) => {
  let db: Db;
  let ledger: SqlCreditLedger;

  beforeAll(async () => {
    db = await testDb.open();
    const applied = await migrate(db, 'gateway');
    expect(applied).toContain('002_credits.sql');
    ledger = new SqlCreditLedger(db);
  });
  afterAll(() => db.close());

  it('starts at zero and applies a purchase once per reference', async () => {
    expect(await ledger.balance('acc_p')).toBe(0);
    expect(await ledger.purchase('acc_p', 100, 'inv-1')).toEqual({
      balance: 100,
      applied: true,
      appliedAmount: 100,
    });
    expect(await ledger.purchase('acc_p', 100, 'inv-1')).toEqual({
      balance: 100,
      applied: false,
      appliedAmount: 100,
    });
    expect(await ledger.purchase('acc_p', 50, 'inv-2')).toEqual({
      balance: 150,
      applied: true,
      appliedAmount: 50,
    });
    // The same reference on another account is another purchase.
    expect(await ledger.purchase('acc_q', 10, 'inv-1')).toEqual({
      balance: 10,
      applied: true,
      appliedAmount: 10,
    });
    expect(await ledger.balance('acc_p')).toBe(150);
  });

  it('says with which amount a reference was first applied when it comes again with another', async () => {
    await ledger.purchase('acc_ref', 5000, 'inv-r');
    expect(await ledger.purchase('acc_ref', 7000, 'inv-r')).toEqual({
      balance: 5000,
      applied: false,
      appliedAmount: 5000,
    });
  });

  it('finds a purchase by its reference, on its account only, with the balance now', async () => {
    await ledger.purchase('acc_found', 40, 'inv-f');
    await ledger.spend('acc_found', 3, 'req-f');
    expect(await ledger.purchased('acc_found', 'inv-f')).toEqual({ amount: 40, balance: 37 });
    expect(await ledger.purchased('acc_found', 'inv-other')).toBeUndefined();
    expect(await ledger.purchased('acc_elsewhere', 'inv-f')).toBeUndefined();
  });

  it('applies concurrent duplicates of one purchase once', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, () => ledger.purchase('acc_dup', 7, 'inv-x')),
    );
    expect(results.filter((r) => r.applied)).toHaveLength(1);
    expect(await ledger.balance('acc_dup')).toBe(7);
  });

  it('rejects amounts that are not positive integers', async () => {
    await expect(ledger.purchase('acc_p', 0, 'inv-0')).rejects.toThrow(RangeError);
    await expect(ledger.purchase('acc_p', 1.5, 'inv-0')).rejects.toThrow(RangeError);
    await expect(ledger.spend('acc_p', -1, 'rq')).rejects.toThrow(RangeError);
    await expect(ledger.purchase('acc_p', 5, '')).rejects.toThrow(RangeError);
  });

  it('spends atomically, never below zero, once per request id', async () => {
    await ledger.purchase('acc_s', 3, 'inv-s');
    expect(await ledger.spend('acc_s', 2, 'rq-1')).toEqual({ ok: true, balance: 1 });
    expect(await ledger.spend('acc_s', 2, 'rq-1')).toEqual({ ok: true, balance: 1 });
    expect(await ledger.spend('acc_s', 2, 'rq-2')).toEqual({ ok: false, balance: 1 });
    // A failed spend leaves no trace: the same request may succeed after a purchase.
    await ledger.purchase('acc_s', 5, 'inv-s2');
    expect(await ledger.spend('acc_s', 2, 'rq-2')).toEqual({ ok: true, balance: 4 });
    expect(await ledger.spend('acc_none', 1, 'rq-3')).toEqual({ ok: false, balance: 0 });
  });

  it('admits exactly the balance under 100 concurrent spends', async () => {
    await ledger.purchase('acc_c', 37, 'inv-c');
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => ledger.spend('acc_c', 1, `rq-c-${i}`)),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(37);
    expect(results.every((r) => r.balance >= 0)).toBe(true);
    expect(await ledger.balance('acc_c')).toBe(0);
    const rows = await db.query<{ n: unknown }>(
      "SELECT count(*) AS n FROM credit_ledger WHERE account_id = 'acc_c' AND kind = 'spend'",
    );
    expect(Number(rows.rows[0]!.n)).toBe(37);
  });

  it('refunds a spend once, and only a spend that happened', async () => {
    await ledger.purchase('acc_r', 10, 'inv-r');
    await ledger.spend('acc_r', 2, 'rq-r1');
    expect(await ledger.balance('acc_r')).toBe(8);
    await ledger.refundSpend('acc_r', 'rq-r1');
    expect(await ledger.balance('acc_r')).toBe(10);
    await ledger.refundSpend('acc_r', 'rq-r1');
    await Promise.all([ledger.refundSpend('acc_r', 'rq-r1'), ledger.refundSpend('acc_r', 'rq-r1')]);
    expect(await ledger.balance('acc_r')).toBe(10);
    await ledger.refundSpend('acc_r', 'never-spent');
    await ledger.refundSpend('acc_other', 'rq-r1');
    expect(await ledger.balance('acc_r')).toBe(10);
    expect(await ledger.balance('acc_other')).toBe(0);
    // A refunded request id stays spent: replaying the spend does not take again.
    expect(await ledger.spend('acc_r', 2, 'rq-r1')).toEqual({ ok: true, balance: 10 });
  });

  it('refunds concurrent duplicates once', async () => {
    await ledger.purchase('acc_rr', 5, 'inv-rr');
    await ledger.spend('acc_rr', 5, 'rq-rr');
    await Promise.all(Array.from({ length: 8 }, () => ledger.refundSpend('acc_rr', 'rq-rr')));
    expect(await ledger.balance('acc_rr')).toBe(5);
  });

  it('keeps a refund the database cannot take now, and gives it once the database answers', async () => {
    await ledger.purchase('acc_away', 5, 'inv-away');
    await ledger.spend('acc_away', 2, 'rq-away');
    let away = true;
    // The same database, unreachable while `away`: transactions fail as a lost connection does.
    const flaky: Db = {
      ...db,
      transaction: (fn) =>
        away
          ? Promise.reject(new DatabaseUnavailableError(new Error('Connection terminated')))
          : db.transaction(fn),
    };
    const kept: string[] = [];
    const flakyLedger = new SqlCreditLedger(flaky, {
      onRefundKept: (r) => kept.push(`${r.requestId} ${String(r.reqId)}`),
    });
    // The third argument is the call's X-Request-Id: only the log line of the kept refund names it.
    await expect(flakyLedger.refundSpend('acc_away', 'rq-away', 'client-req-1')).resolves.toBeUndefined();
    expect([kept, flakyLedger.keptRefunds(), await ledger.balance('acc_away')]).toEqual([
      ['rq-away client-req-1'],
      1,
      3,
    ]);
    away = false;
    const until = Date.now() + 5000;
    while (flakyLedger.keptRefunds() > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect([flakyLedger.keptRefunds(), await ledger.balance('acc_away')]).toEqual([0, 5]);
  });

  // One connection in PGlite: two transactions cannot be in flight together there.
  (testDb.name === 'postgres' ? it : it.skip)(
    'gives back a spend whose commit is still on its way when the refund comes (its answer was lost)',
    async () => {
      await ledger.purchase('acc_race', 5, 'inv-race');
      let commit!: () => void;
      const committing = new Promise<void>((r) => (commit = r));
      let held!: () => void;
      const holding = new Promise<void>((r) => (held = r));
      // The spend's statements, its COMMIT not yet done (as when the answer to it is what was lost).
      const spend = db.transaction(async (tx) => {
        await tx.query(
          `INSERT INTO credit_ledger (account_id, kind, amount, request_id) VALUES ('acc_race', 'spend', 2, 'rq-race')`,
        );
        await tx.query(`UPDATE credit_balances SET balance = balance - 2 WHERE account_id = 'acc_race'`);
        held();
        await committing;
      });
      await holding;
      const refund = ledger.refundSpend('acc_race', 'rq-race');
      await new Promise((r) => setTimeout(r, 100));
      commit();
      await spend;
      await refund;
      expect(await ledger.balance('acc_race')).toBe(5);
    },
  );

  it('the schema itself refuses a negative balance', async () => {
    await expect(
      db.query("INSERT INTO credit_balances (account_id, balance) VALUES ('acc_neg', -1)"),
    ).rejects.toMatchObject({ code: '23514' }); // check_violation
  });
});

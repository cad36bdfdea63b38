import type { DistinctCount, ReserveResult, Usage } from './meter-store';
import { rejection } from './meter-store';
import { RESERVE_DOC, RESERVE_SOURCE, RESERVE_STATUS } from './meter-lua';
import type { Windows } from './windows';

/**
 * The reserve script's reply {status, source, added, second, minute, daily, monthly, fullText,
 * creditCalls}, all integers; status and source by their codes (RESERVE_STATUS, RESERVE_SOURCE).
 */
export function reserveResult(reply: unknown, w: Windows): ReserveResult {
  if (!Array.isArray(reply) || reply.length !== 9) throw new Error('unexpected reserve reply');
  const [statusCode, sourceCode, added, second, minute, daily, monthly, ft, credit] = reply as unknown[];
  const status = RESERVE_STATUS[statusCode as number];
  const doc = RESERVE_DOC[replyNumber(added)];
  const usage: Usage = {
    second: replyNumber(second),
    minute: replyNumber(minute),
    daily: replyNumber(daily),
    monthly: replyNumber(monthly),
    fullText: replyNumber(ft),
  };
  const fail = (
    reason: NonNullable<ReserveResult['reason']>,
    scope: NonNullable<ReserveResult['scope']>,
    retryAfter: number,
  ): ReserveResult => rejection(reason, scope, retryAfter, usage);
  switch (status) {
    case 'ok':
    case 'capped':
      return {
        ok: true,
        source: RESERVE_SOURCE[sourceCode as number] === 'credits' ? 'credits' : 'quota',
        creditCalls: replyNumber(credit),
        fullTextAdded: doc === 'added',
        ...(doc === 'held' ? { fullTextHeld: true as const } : {}),
        ...(status === 'capped' ? { fullTextBlocked: true } : {}),
        shared: true,
        usage,
      };
    case 'second':
      return fail('rate_limited', 'second', w.secondsToSecondEnd);
    case 'minute':
      return fail('rate_limited', 'minute', w.secondsToMinuteEnd);
    case 'daily':
      return fail('quota_exceeded', 'daily', w.secondsToDayEnd);
    case 'monthly':
      return fail('quota_exceeded', 'monthly', w.secondsToMonthEnd);
    default:
      throw new Error(`unexpected reserve status ${String(statusCode)}`);
  }
}

/** The record-ids script's reply {distinct, grew, marked}. */
export function distinctReply(reply: unknown): DistinctCount {
  if (!Array.isArray(reply) || reply.length !== 3) throw new Error('unexpected distinct-count reply');
  const out: DistinctCount = { distinct: replyNumber(reply[0]), grew: replyNumber(reply[1]) === 1 };
  if (replyNumber(reply[2]) === 1) out.lockedOn = true;
  return out;
}

export function replyNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return Number(v);
  return 0;
}

/** Unwraps a pipeline's [error, value] pairs; the first error (often the connection's) is thrown. */
export function pipelineResults(rows: [Error | null, unknown][] | null, expected: number): unknown[] {
  if (!rows || rows.length !== expected) throw new Error('pipeline did not run');
  return rows.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

import { KEY_PARAMS, containsApiKey, hashApiKey, looksLikeApiKey } from '../../accounts/api-keys';
import type { KeyEntry } from '../../accounts/key-cache';
import { ApiError } from '../../errors/api-error';
import type { RequestContext } from '../context';
import type { PolicyFactory } from '../policy';
import type { GatewayHeaders } from '../request-headers';
import { logFailure } from '../../errors/render-error';

/** A key under a name of its own, or a key anywhere in a name or a value (the reference: no key in the query string). */
const carriesKey = ([name, value]: [string, string]): boolean =>
  KEY_PARAMS.has(name.toLowerCase()) || containsApiKey(value) || containsApiKey(name);

const QUERY_KEY_MESSAGE =
  'Không được gửi API key trong query string. Hãy gửi key qua header Authorization: Bearer <API_KEY> hoặc X-Api-Key.';

/** What the access line shows for a record id that held a key. */
const KEY_IN_ID = '[api key]';

const PATH_KEY_MESSAGE =
  'Không được gửi API key trong đường dẫn. Hãy gửi key qua header Authorization: Bearer <API_KEY> hoặc X-Api-Key.';

/** The 401 for a query string that carries a key; the documentation routes, which need no key, refuse it too. */
export function queryKeyRefusal(query: Iterable<[string, string]>): ApiError | undefined {
  for (const pair of query)
    if (carriesKey(pair)) return new ApiError('unauthorized', { message: QUERY_KEY_MESSAGE });
  return undefined;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const BEARER_WORD = /^\s*Bearer\b/i;
const BASIC = /^\s*Basic\s+(\S+)\s*$/i;

/**
 * Whether an Authorization value of another scheme holds a key: as written, or base64-encoded in
 * Basic credentials (`curl -u lk_…:`), so that a key there beside X-Api-Key is refused, not ignored.
 */
function authHoldsKey(auth: string): boolean {
  if (containsApiKey(auth)) return true;
  const basic = BASIC.exec(auth);
  return basic !== null && containsApiKey(Buffer.from(basic[1]!, 'base64').toString('latin1'));
}

const KEY_LOOKUP_FAILED = 'Dịch vụ tạm thời không thể xác thực API key, vui lòng thử lại sau.';

const NOT_BEARER = 'Header Authorization phải có dạng: Bearer <API_KEY>.';
const TWO_KEYS =
  'Chỉ gửi một API key, trong một header: Authorization và X-Api-Key mang hai key khác nhau, hoặc một header mang key được gửi nhiều lần.';
/** Authorization sent on two lines arrives joined with ", " (request-headers). */
const REPEATED_BEARER = /,\s*Bearer\s/i;

/** The key the request carries, or why its headers do not name one key (a 401 message). */
function headerKey(headers: GatewayHeaders): string | undefined | { refused: string } {
  const auth = headers.authorization;
  const fromX = apiKeyHeader(headers.apiKey);
  let fromAuth: string | undefined;
  if (auth !== undefined && auth !== '') {
    const m = BEARER.exec(auth);
    if (m) fromAuth = m[1];
    else if (REPEATED_BEARER.test(auth)) return { refused: TWO_KEYS };
    // Another scheme's credentials (a proxy's Basic) beside X-Api-Key are not this API's to judge:
    // the key is X-Api-Key's. One that says Bearer or holds a key is refused as written.
    else if (fromX === undefined || BEARER_WORD.test(auth) || authHoldsKey(auth))
      return { refused: NOT_BEARER };
  }
  // Two different keys on one request is ambiguous: refuse rather than guess.
  if (fromX === null || (fromAuth !== undefined && fromX !== undefined && fromAuth !== fromX))
    return { refused: TWO_KEYS };
  return fromAuth ?? fromX;
}

/** X-Api-Key's value; sent on two lines, it arrives joined with ", " and is refused rather than picked from. */
function apiKeyHeader(value: string | undefined): string | undefined | null {
  if (value === undefined) return undefined;
  const key = value.trim();
  if (key === '') return undefined;
  return key.includes(',') ? null : key;
}

/**
 * Key from Authorization: Bearer or X-Api-Key, looked up by SHA-256 hash through the in-process cache.
 * Missing/unknown/expired/revoked → 401; unverified e-mail → 403; locked account → 403, /v1/me included
 * (API reference, account states: "Calls fail with 403 account_restricted"), saying when the lock ends.
 */
export const authenticatePolicy: PolicyFactory = (config, deps) => {
  const lowest = config.planList[0]!;
  return {
    name: 'authenticate',
    handle(ctx) {
      // A key pasted where a record id goes: refused as in the query string, not counted as a 404,
      // and its id replaced before anything logs it (the access line writes the route's id). First,
      // since route is the step before this one and every later refusal would log the id as it is.
      if (ctx.route?.id !== undefined && containsApiKey(ctx.route.id)) {
        ctx.route = { ...ctx.route, id: KEY_IN_ID };
        throw new ApiError('unauthorized', { message: PATH_KEY_MESSAGE });
      }
      const refused = queryKeyRefusal(ctx.query);
      if (refused) throw refused;
      const key = headerKey(ctx.headers);
      if (typeof key === 'object') throw new ApiError('unauthorized', { message: key.refused });
      if (!key || !looksLikeApiKey(key)) throw new ApiError('unauthorized');
      const hash = hashApiKey(key);
      // A warm key is answered in this tick; only a miss waits for the database.
      const cached = deps.keyCache.peek(hash);
      if (cached !== undefined) return admit(ctx, cached ?? undefined);
      return deps.keyCache.get(hash).then(
        (entry) => admit(ctx, entry),
        (err: unknown) => {
          // The database cannot say whose key it is: a 503 to retry, not a fault of this gateway.
          logFailure(deps.logger, err, 'key lookup failed', { req_id: ctx.requestId, during: 'key lookup' });
          throw new ApiError('search_unavailable', { message: KEY_LOOKUP_FAILED, retryAfter: 5 });
        },
      );
    },
  };

  function admit(ctx: RequestContext, entry: KeyEntry | undefined): void {
    const now = deps.clock.now();
    if (
      !entry ||
      entry.key.revoked_at !== null ||
      (entry.key.expires_at !== null && entry.key.expires_at <= now)
    ) {
      throw new ApiError('unauthorized');
    }
    const { account } = entry;
    // A plan removed from plans.yaml must not open doors: such accounts fall back to the lowest plan.
    const plan = config.plans.get(account.plan) ?? lowest;
    ctx.principal = { key: entry.key, account, plan };
    if (!account.email_verified) throw new ApiError('email_unverified');
    if (account.restricted_until !== null && account.restricted_until > now) {
      throw new ApiError('account_restricted', {
        reset_in_seconds: Math.ceil((account.restricted_until - now) / 1000),
      });
    }
  }
};

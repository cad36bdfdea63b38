// `npm run admin -- <command>`: a CLI over the admin API (DESIGN §6). Reads its settings from the
// environment: ADMIN_URL (default http://127.0.0.1 on ADMIN_PORT, else the admin_port of
// CONFIG_DIR's gateway.yaml, as the server reads them), and ADMIN_TOKEN, or
// ADMIN_JWT_SECRET to sign one, or the embedded default's secret in DATA_DIR (default ./var).
import { parseArgs } from 'node:util';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_CREDIT_AMOUNT } from '../admin/admin-schemas';
import { loadGatewayFile } from '../config/load-config';
import { keptAdminSecret, signAdminToken } from '../runtime/admin-secret';

const USAGE = `usage: npm run admin -- <command> [options]

  accounts create --email <e> --plan <plan> [--verified]
  accounts get <account-id>
  accounts find --email <e>  the account of an e-mail (a registration whose answer was lost)
  accounts update <account-id> [--plan <plan>] [--verified | --unverified] [--restricted-until <ISO>|null]
  accounts unlock <account-id>
  keys create <account-id> [--expires-at <ISO>] [--ip <cidr>]...
  keys list <account-id>
  keys revoke <key-id>
  credits add <account-id> --amount <n> --reference <ref>
  token                      print an admin token (needs ADMIN_JWT_SECRET or the embedded secret)

environment: ADMIN_URL | ADMIN_PORT | CONFIG_DIR, ADMIN_TOKEN | ADMIN_JWT_SECRET, DATA_DIR`;

const env = process.env;

/** A user's mistake: its message, and no stack. */
class UsageError extends Error {}

async function token(): Promise<string> {
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  const secret = env.ADMIN_JWT_SECRET || keptAdminSecret(env.DATA_DIR || './var');
  if (!secret)
    throw new UsageError('set ADMIN_TOKEN or ADMIN_JWT_SECRET (or run next to the embedded DATA_DIR)');
  return signAdminToken(secret, Date.now(), 3600, 'admin-cli');
}

/**
 * Where the server's admin port is, read as the server reads it: ADMIN_PORT, else gateway.yaml
 * admin_port (9090 when the file does not set it, or when there is no config here at all).
 */
function adminBase(): string {
  // A trailing slash would make every path start with //, which no admin route is.
  if (env.ADMIN_URL) return env.ADMIN_URL.replace(/\/+$/, '');
  if (env.ADMIN_PORT) return `http://127.0.0.1:${env.ADMIN_PORT}`;
  const dir = env.CONFIG_DIR || './config';
  const port = existsSync(join(dir, 'gateway.yaml')) ? loadGatewayFile(dir).admin_port : 9090;
  return `http://127.0.0.1:${port}`;
}

async function call(method: string, path: string, body?: unknown): Promise<unknown> {
  const base = adminBase();
  // Before the request: a missing secret is not an unreachable server.
  const authorization = `Bearer ${await token()}`;
  let r: Response;
  try {
    r = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(
      `cannot reach the admin API at ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
    );
  }
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path} → ${r.status} ${text}`);
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    throw new Error(
      `${method} ${path} → ${r.status}, not JSON (is ADMIN_URL the admin port?): ${text.slice(0, 200)}`,
    );
  }
}

/** An id as one path segment: `../x` or `a/b` cannot reach another route. */
const seg = (id: string): string => encodeURIComponent(id);

/** Credits are whole calls: digits only, so 0x10 or 1e3 is not taken for 16 or 1000. */
function wholeAmount(raw: string): number {
  if (!/^[1-9]\d{0,9}$/.test(raw) || Number(raw) > MAX_CREDIT_AMOUNT)
    throw new UsageError(`--amount must be a positive whole number up to ${MAX_CREDIT_AMOUNT}, not "${raw}"`);
  return Number(raw);
}

/** The options each command takes: any other given to it is a mistake, not something to ignore. */
const OPTIONS_OF: Readonly<Record<string, readonly string[]>> = {
  'accounts create': ['email', 'plan', 'verified'],
  'accounts get': [],
  'accounts find': ['email'],
  'accounts update': ['plan', 'verified', 'unverified', 'restricted-until'],
  'accounts unlock': [],
  'keys create': ['expires-at', 'ip'],
  'keys list': [],
  'keys revoke': [],
  'credits add': ['amount', 'reference'],
  token: [],
};

/** An option given empty (`--plan "$UNSET"`) or to a command that does not take it. */
function optionMistake(command: string, given: Record<string, unknown>): string | undefined {
  const takes = Object.hasOwn(OPTIONS_OF, command) ? OPTIONS_OF[command]! : undefined;
  for (const [name, v] of Object.entries(given)) {
    if (v === undefined || name === 'help') continue;
    if (takes && !takes.includes(name)) return `--${name} does not apply to ${command}`;
    if (v === '' || (Array.isArray(v) && v.includes(''))) return `--${name} needs a value, not an empty one`;
  }
  return undefined;
}

async function run(argv: string[]): Promise<unknown> {
  const { values: o, positionals: p } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: 'string' },
      plan: { type: 'string' },
      verified: { type: 'boolean' },
      unverified: { type: 'boolean' },
      'restricted-until': { type: 'string' },
      'expires-at': { type: 'string' },
      ip: { type: 'string', multiple: true },
      amount: { type: 'string' },
      reference: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (o.help) return HELP;
  const [group, action, ...rest] = p;
  // Every command but `accounts create` (and `token`, whose action is its extra) takes one id.
  const noId = group === 'accounts' && (action === 'create' || action === 'find');
  const [id, ...extra] = noId ? [undefined, ...rest] : rest;
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}\n\n${USAGE}`);
  if (o.verified && o.unverified) throw new UsageError('--verified and --unverified contradict each other');
  const command = `${group} ${action ?? ''}`.trim();
  const mistake = optionMistake(command, o);
  if (mistake) throw new UsageError(`${mistake}\n\n${USAGE}`);
  const need = (v: string | undefined, what: string): string => {
    if (!v) throw new UsageError(`missing ${what}\n\n${USAGE}`);
    return v;
  };
  switch (command) {
    case 'accounts create':
      return call('POST', '/admin/accounts', {
        email: need(o.email, '--email'),
        plan: need(o.plan, '--plan'),
        email_verified: o.verified === true,
      });
    case 'accounts get':
      return call('GET', `/admin/accounts/${seg(need(id, 'account id'))}`);
    case 'accounts find':
      return call('GET', `/admin/accounts?email=${encodeURIComponent(need(o.email, '--email'))}`);
    case 'accounts update': {
      const body: Record<string, unknown> = {};
      if (o.plan) body.plan = o.plan;
      if (o.verified || o.unverified) body.email_verified = o.verified === true;
      if (o['restricted-until'] !== undefined)
        body.restricted_until = o['restricted-until'] === 'null' ? null : o['restricted-until'];
      const accountId = seg(need(id, 'account id'));
      if (Object.keys(body).length === 0)
        throw new UsageError(
          'nothing to update: give --plan, --verified, --unverified or --restricted-until',
        );
      return call('PATCH', `/admin/accounts/${accountId}`, body);
    }
    case 'accounts unlock':
      return call('PATCH', `/admin/accounts/${seg(need(id, 'account id'))}`, { restricted_until: null });
    case 'keys create':
      return call('POST', `/admin/accounts/${seg(need(id, 'account id'))}/keys`, {
        ...(o['expires-at'] ? { expires_at: o['expires-at'] } : {}),
        ...(o.ip ? { ip_allowlist: o.ip } : {}),
      });
    case 'keys list':
      return call('GET', `/admin/accounts/${seg(need(id, 'account id'))}/keys`);
    case 'keys revoke':
      return call('DELETE', `/admin/keys/${seg(need(id, 'key id'))}`);
    case 'credits add':
      return call('POST', `/admin/accounts/${seg(need(id, 'account id'))}/credits`, {
        amount: wholeAmount(need(o.amount, '--amount')),
        reference: need(o.reference, '--reference'),
      });
    case 'token':
      return { token: await token() };
    default:
      throw new UsageError(USAGE);
  }
}

const HELP = Symbol('help');

run(process.argv.slice(2)).then(
  (out) => console.log(out === HELP ? USAGE : JSON.stringify(out, null, 2)),
  (err: unknown) => {
    // parseArgs' own errors (an unknown option, a missing value) are usage errors too.
    const usage = err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    console.error(
      usage && !(err instanceof UsageError)
        ? `${(err as Error).message}\n\n${USAGE}`
        : (err as Error).message,
    );
    process.exit(usage ? 2 : 1);
  },
);

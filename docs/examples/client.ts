// A tiny typed client for the Lookup API over fetch, typed by lookup-api.d.ts (generated from
// /v1/openapi.json by `tsx scripts/generate-client-types.ts`). Server-side only: API keys must
// never ship in browser or mobile code.
import type { ErrorBody, operations } from './lookup-api';

type OperationId = keyof operations;
/** Query parameters of an operation (page and per_page included). */
type Query<O extends OperationId> = NonNullable<operations[O]['parameters']['query']>;
/** The 200 body of an operation. */
type Ok<O extends OperationId> = operations[O]['responses'][200]['content']['application/json'];

/**
 * Codes worth retrying after Retry-After: a rate window, the per-IP volume, a service briefly away.
 * quota_exceeded and full_text_limit wait for their reset (hours), and the rest will not change.
 */
const RETRYABLE: ReadonlySet<string> = new Set(['rate_limited', 'too_many_requests', 'search_unavailable']);

/** An error answer of the API: `body.code` is the stable code (unauthorized, page_limit…). */
export class LookupApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(`${status} ${body.code}: ${body.message}`);
  }

  /** Whether the same request may succeed after `retryAfterSeconds`. */
  get retryable(): boolean {
    return RETRYABLE.has(this.body.code);
  }
}

export class LookupClient {
  /** `origin`: the server, e.g. https://api.example.vn (the reference's base URL less its /v1). */
  constructor(
    private readonly origin: string,
    private readonly apiKey: string,
  ) {}

  private async get<T>(
    path: string,
    query: Record<string, string | number | boolean | undefined> = {},
  ): Promise<T> {
    const url = new URL(path, this.origin);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) url.searchParams.set(k, String(v));
    const res = await fetch(url, { headers: { 'X-Api-Key': this.apiKey, Accept: 'application/json' } });
    // A proxy in between (a load balancer's 502 page) does not answer in the API's envelope.
    if (!(res.headers.get('Content-Type') ?? '').startsWith('application/json'))
      throw new Error(
        `${res.status} from ${url.host}, not the API's JSON: ${(await res.text()).slice(0, 200)}`,
      );
    const body: unknown = await res.json();
    if (!res.ok) {
      const retry = res.headers.get('Retry-After');
      throw new LookupApiError(res.status, body as ErrorBody, retry === null ? undefined : Number(retry));
    }
    return body as T;
  }

  searchLegalDocuments(query: Query<'listLegalDocuments'>): Promise<Ok<'listLegalDocuments'>> {
    return this.get('/v1/legal-documents', query);
  }

  legalDocument(id: string): Promise<Ok<'getLegalDocuments'>> {
    return this.get(`/v1/legal-documents/${encodeURIComponent(id)}`);
  }

  bailiffOffices(query: Query<'listBailiffOffices'> = {}): Promise<Ok<'listBailiffOffices'>> {
    return this.get('/v1/bailiff-offices', query);
  }

  businessUnitTypes(
    query: Query<'listDmdcBusinessUnitTypes'> = {},
  ): Promise<Ok<'listDmdcBusinessUnitTypes'>> {
    return this.get('/v1/dmdc-business-unit-types', query);
  }

  me(): Promise<Ok<'getMe'>> {
    return this.get('/v1/me');
  }
}

/** Usage: newest decrees in effect mentioning "đất đai", then the first one in full. */
export async function example(origin: string, apiKey: string): Promise<void> {
  const api = new LookupClient(origin, apiKey);
  try {
    const page = await api.searchLegalDocuments({ q: 'đất đai', status_id: 1, sort: 'newest', per_page: 10 });
    for (const doc of page.data) console.log(doc.id, doc.code, doc.name, doc.issued_date);
    // max_page is the plan's page ceiling, not the number of pages: that one follows from the total.
    const pages = Math.min(Math.ceil(page.meta.total / page.meta.per_page), page.meta.max_page);
    console.log(`page ${page.meta.page}/${pages}, ${page.meta.total} matches`);
    const first = page.data[0];
    if (first) {
      const detail = await api.legalDocument(first.id);
      console.log(detail.data.signer, detail.meta.locked_fields);
    }
    const { quota } = (await api.me()).data;
    console.log(`${quota.monthly_remaining} calls left this month`);
  } catch (err) {
    if (err instanceof LookupApiError && err.retryable) {
      console.log(`${err.body.code}: retry in ${err.retryAfterSeconds ?? 1} s`);
    } else throw err;
  }
}

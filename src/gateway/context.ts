import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Account, ApiKeyRecord } from '../accounts/account-types';
import type { CompiledDataset, CompiledPlan, CompiledSubresource } from '../config/compile-config';
import type { ReserveInput, ReserveResult, Usage } from '../metering/meter-store';
import type { Windows } from '../metering/windows';
import type { GatewayHeaders } from './request-headers';

export type RouteKind = 'list' | 'detail' | 'subresource' | 'me' | 'datasets';

export interface ResolvedRoute {
  kind: RouteKind;
  dataset?: CompiledDataset;
  id?: string;
  subresource?: CompiledSubresource;
  /** A detail id that cannot exist (wrong prefix or shape): answered 404, and it counts. */
  unknownId?: boolean;
  /** Metrics/log label. */
  label: string;
}

export interface Principal {
  key: ApiKeyRecord;
  account: Account;
  plan: CompiledPlan;
}

export interface Reservation {
  input: ReserveInput;
  result: ReserveResult;
  creditsSpent: boolean;
  settled: boolean;
  /**
   * The call counts but opened no document of the day (an unknown id, a record without full text):
   * settle gives its full-text slot back.
   */
  openedNoDocument?: boolean;
}

/** Everything the pipeline learns about one request; policies read and fill it in order. */
export interface RequestContext {
  requestId: string;
  /** Gateway-made, unique per request: the idempotency key of metering (X-Request-Id may repeat). */
  meterId: string;
  startedAt: number;
  clientIp: string;
  req: IncomingMessage;
  res: ServerResponse;
  /** The request headers the pipeline reads, taken from the request once. */
  headers: GatewayHeaders;
  /** Raw query pairs, decoded; a repeated name is kept repeated so validation can refuse it. */
  query: [string, string][];
  queryError?: string;
  route?: ResolvedRoute;
  principal?: Principal;
  windows?: Windows;
  /** Validated parameters forwarded upstream (defaults applied), as the upstream's query string. */
  upstreamQuery?: string;
  page?: number;
  perPage?: number;
  reservation?: Reservation;
  usage?: Usage;
  /** Extra credits left after this call spent one (the monthly quota is gone): the month's real remainder. */
  creditsLeft?: number;
  upstreamStatus?: number;
  upstreamMs?: number;
  upstreamWaitMs?: number;
}

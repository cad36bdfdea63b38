// The upstream kit: what a dataset team imports to build an upstream service (DESIGN §4).
export type {
  BitmapCountSpec,
  DatasetSpec,
  FilterSpec,
  ParamType,
  ParamValue,
  SearchMode,
  SearchSpec,
  SortContext,
  SortOption,
  SortSpec,
  SubresourceHandler,
} from './dataset-spec';
export { createUpstreamApp } from './upstream-app';
export { MAX_UPSTREAM_RESPONSE_BYTES } from './response-limit';
export { identityVerifier, remoteIdentityVerifier, upstreamAudience } from './verify-identity';
export type { IdentityCheck, IdentityExpectation, IdentityRefusal } from './verify-identity';
export type { UpstreamAppOptions } from './upstream-app';
export { datasetRouter } from './dataset-router';
export { listRecords, getRecord, recordExists, datasetTotal } from './query-dataset';
export type { ListResult } from './query-dataset';
export type { BuiltQuery, CountQuery } from './build-query';
export { buildListQuery } from './build-query';
export {
  APOSTROPHES,
  foldText,
  foldedExpr,
  keywordWords,
  escapeLike,
  rankTextExpr,
  wordVectorExpr,
} from './normalize-keyword';
export { parseParam, parsePaging, MAX_PER_PAGE, DEFAULT_PER_PAGE } from './parse-params';
export { isCalendarDate } from '../util/iso-time';
export { UpstreamError, invalidParam, notFound, unknownEndpoint } from './upstream-error';
export { insertRows, upsertClause } from './insert-rows';
export { eq, gte, lte } from './filters';
export { parsePointParam, pointOf, readLatLng } from './parse-point';
export type { LatLng } from './parse-point';
export { resolveFilters } from './resolve-filters';
export { relevanceOrder } from './relevance';
export { wordPrefixSearch } from './word-search';
// What a standalone service needs around the app: its database (PostgreSQL, or PGlite in a
// directory), its migrations (a directory of NNN_*.sql), its logger.
export { openDb } from '../db/open-db';
export type { OpenDbOptions } from '../db/open-db';
export type { Db, Queryable } from '../db/db';
export { migrate } from '../db/migrate';
export { createLogger } from '../util/logger';
export type { Logger } from '../util/logger';

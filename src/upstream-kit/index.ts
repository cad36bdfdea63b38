// The upstream kit: what a dataset team imports to build an upstream service (DESIGN §4).
export type {
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
export type { UpstreamAppOptions } from './upstream-app';
export { datasetRouter } from './dataset-router';
export { listRecords, getRecord, recordExists, datasetTotal } from './query-dataset';
export type { ListResult } from './query-dataset';
export { buildListQuery } from './build-query';
export { foldText, foldedExpr, keywordWords, escapeLike } from './normalize-keyword';
export { parseParam, parsePaging, isCalendarDate, MAX_PER_PAGE, DEFAULT_PER_PAGE } from './parse-params';
export { UpstreamError, invalidParam, notFound } from './upstream-error';
export { insertRows, upsertClause } from './insert-rows';
export { eq, gte, lte } from './filters';
export { relevanceOrder } from './relevance';

import type { RuntimeConfig } from '../config/compile-config';
import { bi } from './bilingual';
import { errorResponses } from './errors';
import type { PathItemObject, ResponseObject } from './openapi-types';
import { ref, schemaRef } from './openapi-types';
import { CALLER_ERRORS, ok } from './operations';

export const ACCOUNT_TAG = 'account';
export const META_TAG = 'openapi';

/** /v1/me, /v1/datasets (account and discovery; they count nothing) and this document itself. */
export function accountPaths(
  config: RuntimeConfig,
  responses: Record<string, ResponseObject>,
): Record<string, PathItemObject> {
  return {
    '/v1/me': {
      get: {
        operationId: 'getMe',
        summary: 'Hạn mức tài khoản / Account quota summary',
        description: bi(
          'Hạn mức còn lại của tài khoản, số lượt mua thêm (extra_credits) và giới hạn toàn văn mỗi ngày. Không tính lượt gọi. Khi tài khoản đang bị tạm khóa: 403 account_restricted, reset_in_seconds đến khi hết khóa.',
          'The account’s remaining quota, purchased extra calls (extra_credits) and the daily full-text cap. Does not consume a call. While the account is temporarily locked: 403 account_restricted, with reset_in_seconds until the lock ends.',
        ),
        tags: [ACCOUNT_TAG],
        'x-min-plan': config.planList[0]!.name,
        'x-cost': 0,
        responses: {
          '200': ok(bi('Tóm tắt hạn mức.', 'Quota summary.'), schemaRef('MeResponse')),
          ...errorResponses([...CALLER_ERRORS, 'account_restricted'], config, responses),
        },
      },
    },
    '/v1/datasets': {
      get: {
        operationId: 'listDatasets',
        summary: 'Tập dữ liệu của gói / Datasets available to the plan',
        description: bi(
          'Các tập dữ liệu mà gói hiện tại dùng được, kèm tham số, trường bị khóa và tài nguyên con. Không cần tham số: khi không có page và per_page, trả về tất cả trong một trang; khi có, phân trang như mọi danh sách. Không tính lượt gọi.',
          'The datasets the caller’s plan may use, with their parameters, locked fields and sub-resources. No parameters needed: without page and per_page, all of them in one page; with either, paged like every list. Does not consume a call.',
        ),
        tags: [ACCOUNT_TAG],
        parameters: [ref('parameters', 'page'), ref('parameters', 'per_page')],
        'x-min-plan': config.planList[0]!.name,
        'x-cost': 0,
        responses: {
          '200': ok(bi('Danh sách tập dữ liệu.', 'Datasets.'), schemaRef('DatasetsResponse')),
          ...errorResponses([...CALLER_ERRORS, 'account_restricted', 'page_limit'], config, responses),
        },
      },
    },
    '/v1/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'Tài liệu OpenAPI này / This OpenAPI document',
        description: bi(
          'Tài liệu OpenAPI 3.1 sinh từ danh mục tập dữ liệu. Không cần API key, không tính lượt gọi. Trang tham chiếu: /docs.',
          'The OpenAPI 3.1 document generated from the dataset registry. No key needed, never counted. Reference page: /docs. A key in the query string is refused here as everywhere (401), and the document counts in the per-IP volume (429).',
        ),
        tags: [META_TAG],
        security: [],
        'x-cost': 0,
        responses: {
          '200': {
            description: bi('Tài liệu OpenAPI.', 'The OpenAPI document.'),
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['openapi', 'paths'],
                  properties: { openapi: { type: 'string' }, paths: { type: 'object' } },
                },
              },
            },
          },
          ...errorResponses(['unauthorized', 'too_many_requests'], config, responses),
        },
      },
    },
  };
}

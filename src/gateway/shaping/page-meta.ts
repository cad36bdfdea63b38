/**
 * The meta of every list alike, dataset lists and GET /v1/datasets, its members in the API
 * reference's order ("meta fields").
 */
export function listMeta(
  page: number,
  perPage: number,
  total: number,
  maxPage: number,
  lockedFields: string[],
  upgradeUrl: string,
) {
  return {
    page,
    per_page: perPage,
    total,
    // A further page exists and the plan lets the caller ask for it.
    has_more: page < maxPage && page * perPage < total,
    max_page: maxPage,
    locked_fields: lockedFields,
    upgrade_url: upgradeUrl,
  };
}

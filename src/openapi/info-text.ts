import type { RuntimeConfig } from '../config/compile-config';
import { ERROR_CATALOGUE } from '../errors/catalogue';
import { planLabel } from '../config/plan-label';
import { PUBLIC_ERROR_CODES } from './errors';

function planTable(config: RuntimeConfig): string {
  const rows = config.planList.map(
    (p) =>
      `| ${planLabel(p.name)} | ${p.monthly_calls} | ${p.daily_calls} | ${p.per_minute} | ${p.per_second} | ${p.per_page_max} | ${p.max_page} | ${p.full_text_daily} |`,
  );
  return [
    '| Gói / Plan | Tháng / Month | Ngày / Day | Phút / Minute | Giây / Second | per_page max | max page | Toàn văn/ngày / Full text per day |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}

/** info.description: the reference's shared behaviour, Vietnamese then English, numbers from plans.yaml. */
export function infoDescription(config: RuntimeConfig): string {
  const errors = PUBLIC_ERROR_CODES.map(
    (c) => `| ${ERROR_CATALOGUE[c].status} | \`${c}\` | ${ERROR_CATALOGUE[c].message} |`,
  ).join('\n');
  return `API REST chỉ đọc (chỉ GET, JSON UTF-8) tra cứu văn bản pháp luật và dữ liệu công của Việt Nam. Mỗi tập dữ liệu có endpoint danh sách \`GET /v1/{dataset}\` và chi tiết \`GET /v1/{dataset}/{id}\`.

*A read-only REST API (GET only, UTF-8 JSON) over Vietnamese legal and public datasets. Every dataset has a list endpoint \`GET /v1/{dataset}\` and a detail endpoint \`GET /v1/{dataset}/{id}\`.*

## Xác thực / Authentication

Gửi API key qua \`Authorization: Bearer <API_KEY>\` hoặc \`X-Api-Key: <API_KEY>\`. Không gửi key trong query string. Chỉ dùng key từ máy chủ, không nhúng vào trình duyệt hay ứng dụng di động.

*Send the key as \`Authorization: Bearer <API_KEY>\` or \`X-Api-Key: <API_KEY>\`, never in the query string. Use keys from servers only, never in browser script or mobile apps.*

## Gói và giới hạn / Plans and limits

"Starter+" nghĩa là Starter trở lên. Các con số dưới đây cũng có trong phần mở rộng \`x-plans\`.

*"Starter+" means Starter and above. The numbers below are also in the \`x-plans\` extension.*

${planTable(config)}

Mỗi yêu cầu dữ liệu tốn 1 lượt (relations tốn 2). 404 với mã không tồn tại vẫn tính; lỗi tham số, lỗi quyền, lỗi máy chủ, \`full_text_limit\`, \`/v1/me\` và \`/v1/datasets\` không tính. per_page lớn hơn trần được hạ xuống; page vượt \`max_page\` → 422 \`page_limit\`. Đặt lại hạn mức lúc 00:00 hằng ngày và ngày 1 hằng tháng, múi giờ ${config.raw.plans.timezone}.

*Each data request costs 1 call (relations cost 2). A 404 for an unknown id counts; parameter errors, permission errors, server errors, \`full_text_limit\`, \`/v1/me\` and \`/v1/datasets\` do not. A per_page above the ceiling is lowered; a page above \`max_page\` gives 422 \`page_limit\`. Quotas reset daily at 00:00 and monthly on the 1st, time zone ${config.raw.plans.timezone}.*

## Lỗi / Errors

\`{ "success": false, "code": "...", "message": "..." }\`, có thể kèm / may also carry \`quota\`, \`reset_in_seconds\`, \`upgrade_url\`, \`buy_credits_url\`.

| HTTP | code | message |
|---|---|---|
${errors}
`;
}

import type { Rng } from './random';

const CHAPTERS = ['QUY ĐỊNH CHUNG', 'QUY ĐỊNH CỤ THỂ', 'TRÁCH NHIỆM CỦA CÁC CƠ QUAN, TỔ CHỨC', 'ĐIỀU KHOẢN THI HÀNH'];
const ARTICLES = ['Phạm vi điều chỉnh', 'Đối tượng áp dụng', 'Giải thích từ ngữ', 'Nguyên tắc thực hiện', 'Hồ sơ, trình tự, thủ tục', 'Thẩm quyền giải quyết', 'Chế độ báo cáo', 'Hiệu lực thi hành', 'Trách nhiệm thi hành'];
const ROMAN = ['I', 'II', 'III', 'IV', 'V'];
const CLAUSES = [
  'Cơ quan, tổ chức, cá nhân có liên quan thực hiện {t} theo quy định của pháp luật.',
  'Việc thực hiện {t} phải bảo đảm công khai, minh bạch, đúng thẩm quyền và thời hạn.',
  'Hồ sơ đề nghị được nộp trực tiếp, qua dịch vụ bưu chính hoặc qua Cổng Dịch vụ công quốc gia.',
  'Trong thời hạn 15 ngày kể từ ngày nhận đủ hồ sơ hợp lệ, cơ quan có thẩm quyền xem xét, giải quyết; trường hợp từ chối phải trả lời bằng văn bản và nêu rõ lý do.',
  'Ủy ban nhân dân cấp tỉnh chịu trách nhiệm tổ chức triển khai, kiểm tra việc thực hiện {t} trên địa bàn.',
  'Kinh phí thực hiện được bảo đảm từ ngân sách nhà nước theo phân cấp hiện hành và các nguồn hợp pháp khác.',
];

export interface ContentInput {
  name: string;
  code: string;
  topic: string;
  signer: string;
  agency: string;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Full text in the usual layout of a Vietnamese legal document: Chương, Điều, Khoản (a few KB). */
export function legalContentHtml(rng: Rng, d: ContentInput): string {
  const parts: string[] = [
    `<div class="van-ban"><p class="quoc-hieu">CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM<br>Độc lập - Tự do - Hạnh phúc</p>`,
    `<p class="so-hieu">Số: ${esc(d.code)}</p><h1>${esc(d.name)}</h1>`,
    `<p>Căn cứ Hiến pháp nước Cộng hòa xã hội chủ nghĩa Việt Nam;</p><p>Theo đề nghị của cơ quan chủ trì soạn thảo;</p>`,
  ];
  let article = 1;
  const chapters = rng.int(2, 4);
  for (let c = 0; c < chapters; c++) {
    parts.push(`<h2>Chương ${ROMAN[c]}</h2><h3>${CHAPTERS[c === chapters - 1 ? 3 : c]}</h3>`);
    const articles = rng.int(2, 3);
    for (let a = 0; a < articles; a++, article++) {
      parts.push(`<h4>Điều ${article}. ${ARTICLES[(article - 1) % ARTICLES.length]}</h4>`);
      const clauses = rng.int(2, 3);
      for (let k = 1; k <= clauses; k++) parts.push(`<p>${k}. ${esc(rng.pick(CLAUSES).replace('{t}', d.topic))}</p>`);
    }
  }
  parts.push(`<p class="noi-nhan">Nơi nhận: Như Điều ${article - 1}; Lưu: VT.</p><p class="chu-ky">${esc(d.agency.toUpperCase())}<br>${esc(d.signer)}</p></div>`);
  return parts.join('\n');
}

/** An English rendering for the share of documents that have one. */
export function legalContentEn(rng: Rng, d: { code: string; topic: string }): string {
  const articles = rng.int(3, 6);
  const parts = [`<div class="document" lang="en"><p>No. ${esc(d.code)}</p><h1>Regulations on ${esc(d.topic)} (unofficial translation)</h1>`];
  for (let a = 1; a <= articles; a++) {
    parts.push(`<h4>Article ${a}.</h4><p>1. Agencies, organisations and individuals concerned shall comply with this Article.</p><p>2. The competent authority shall decide within 15 days of receiving a complete application.</p>`);
  }
  parts.push('</div>');
  return parts.join('\n');
}

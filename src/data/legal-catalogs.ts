/** Legal-document catalogs: the reference lists behind /catalogs/* and the generator. */

export const LEGAL_DATABASES = [
  { id: 'vbqppl', name: 'Văn bản quy phạm pháp luật', description: 'Luật, nghị định, thông tư, quyết định và các văn bản quy phạm khác.' },
  { id: 'ban-an', name: 'Bản án, quyết định của Tòa án', description: 'Bản án và quyết định đã công bố của Tòa án nhân dân các cấp.' },
  { id: 'dieu-uoc', name: 'Điều ước quốc tế', description: 'Điều ước, hiệp định quốc tế mà Việt Nam là thành viên.' },
  { id: 'tieu-chuan', name: 'Tiêu chuẩn, quy chuẩn kỹ thuật', description: 'Tiêu chuẩn quốc gia (TCVN) và quy chuẩn kỹ thuật quốc gia (QCVN).' },
  { id: 'cong-van', name: 'Công văn', description: 'Công văn hướng dẫn, giải đáp của các cơ quan nhà nước.' },
] as const;

export type LegalDatabase = (typeof LEGAL_DATABASES)[number]['id'];
export const LEGAL_DATABASE_IDS: LegalDatabase[] = LEGAL_DATABASES.map((d) => d.id);

/** The six validity states; id 1 is "in effect" as in the reference's example. */
export const LEGAL_STATUSES = [
  { id: 1, name: 'Còn hiệu lực', name_en: 'In effect' },
  { id: 2, name: 'Hết hiệu lực', name_en: 'Expired' },
  { id: 3, name: 'Bị hủy bỏ', name_en: 'Cancelled' },
  { id: 4, name: 'Chưa có hiệu lực', name_en: 'Not yet in effect' },
  { id: 5, name: 'Không còn phù hợp', name_en: 'No longer appropriate' },
  { id: 6, name: 'Chưa xác định', name_en: 'Undetermined' },
] as const;

export const STATUS = { inEffect: 1, expired: 2, cancelled: 3, notYet: 4, noLongerAppropriate: 5, undetermined: 6 } as const;

/** code: the suffix family used to build document numbers. */
export const LEGAL_DOCUMENT_TYPES = [
  { id: 1, name: 'Hiến pháp', code: 'HP' },
  { id: 2, name: 'Bộ luật', code: 'BL' },
  { id: 3, name: 'Luật', code: 'L' },
  { id: 4, name: 'Pháp lệnh', code: 'PL' },
  { id: 5, name: 'Nghị quyết', code: 'NQ' },
  { id: 6, name: 'Nghị định', code: 'NĐ' },
  { id: 7, name: 'Quyết định', code: 'QĐ' },
  { id: 8, name: 'Thông tư', code: 'TT' },
  { id: 9, name: 'Thông tư liên tịch', code: 'TTLT' },
  { id: 10, name: 'Chỉ thị', code: 'CT' },
  { id: 11, name: 'Công văn', code: 'CV' },
  { id: 12, name: 'Bản án', code: 'BA' },
  { id: 13, name: 'Quyết định giám đốc thẩm', code: 'GĐT' },
  { id: 14, name: 'Điều ước quốc tế', code: 'ĐƯ' },
  { id: 15, name: 'Tiêu chuẩn Việt Nam', code: 'TCVN' },
  { id: 16, name: 'Quy chuẩn kỹ thuật quốc gia', code: 'QCVN' },
  { id: 17, name: 'Văn bản hợp nhất', code: 'VBHN' },
] as const;

export const LEGAL_FIELDS = [
  'Đất đai',
  'Thuế - Phí - Lệ phí',
  'Doanh nghiệp',
  'Lao động - Tiền lương',
  'Xây dựng - Đô thị',
  'Giao thông - Vận tải',
  'Bảo hiểm',
  'Tài chính nhà nước',
  'Tiền tệ - Ngân hàng',
  'Thương mại',
  'Đầu tư',
  'Bộ máy hành chính',
  'Tư pháp',
  'Trách nhiệm hình sự',
  'Quyền dân sự',
  'Giáo dục',
  'Thể thao - Y tế',
  'Tài nguyên - Môi trường',
  'Công nghệ thông tin',
  'Sở hữu trí tuệ',
  'Xuất nhập khẩu',
  'Kế toán - Kiểm toán',
  'Văn hóa - Xã hội',
  'Chứng khoán',
  'Vi phạm hành chính',
  'Thủ tục tố tụng',
  'Bất động sản',
  'Lĩnh vực khác',
].map((name, i) => ({ id: i + 1, name }));

/** Central agencies; short is the suffix in document numbers (…/NĐ-CP, …/TT-BTC). */
export const CENTRAL_AGENCIES = [
  { name: 'Quốc hội', short: 'QH', level: 'central' },
  { name: 'Ủy ban Thường vụ Quốc hội', short: 'UBTVQH', level: 'central' },
  { name: 'Chủ tịch nước', short: 'CTN', level: 'central' },
  { name: 'Chính phủ', short: 'CP', level: 'central' },
  { name: 'Thủ tướng Chính phủ', short: 'TTg', level: 'central' },
  { name: 'Bộ Tài chính', short: 'BTC', level: 'ministry' },
  { name: 'Bộ Tư pháp', short: 'BTP', level: 'ministry' },
  { name: 'Bộ Công an', short: 'BCA', level: 'ministry' },
  { name: 'Bộ Quốc phòng', short: 'BQP', level: 'ministry' },
  { name: 'Bộ Ngoại giao', short: 'BNG', level: 'ministry' },
  { name: 'Bộ Nội vụ', short: 'BNV', level: 'ministry' },
  { name: 'Bộ Xây dựng', short: 'BXD', level: 'ministry' },
  { name: 'Bộ Y tế', short: 'BYT', level: 'ministry' },
  { name: 'Bộ Giáo dục và Đào tạo', short: 'BGDĐT', level: 'ministry' },
  { name: 'Bộ Nông nghiệp và Môi trường', short: 'BNNMT', level: 'ministry' },
  { name: 'Bộ Công Thương', short: 'BCT', level: 'ministry' },
  { name: 'Bộ Khoa học và Công nghệ', short: 'BKHCN', level: 'ministry' },
  { name: 'Bộ Văn hóa, Thể thao và Du lịch', short: 'BVHTTDL', level: 'ministry' },
  { name: 'Bộ Dân tộc và Tôn giáo', short: 'BDTTG', level: 'ministry' },
  { name: 'Ngân hàng Nhà nước Việt Nam', short: 'NHNN', level: 'ministry' },
  { name: 'Thanh tra Chính phủ', short: 'TTCP', level: 'ministry' },
  { name: 'Tòa án nhân dân tối cao', short: 'TANDTC', level: 'judicial' },
  { name: 'Viện kiểm sát nhân dân tối cao', short: 'VKSNDTC', level: 'judicial' },
  { name: 'Kiểm toán nhà nước', short: 'KTNN', level: 'central' },
  { name: 'Cục Thuế', short: 'CT', level: 'department' },
  { name: 'Bảo hiểm xã hội Việt Nam', short: 'BHXH', level: 'department' },
  { name: 'Ủy ban Chứng khoán Nhà nước', short: 'UBCK', level: 'department' },
] as const;

export interface AgencyRow {
  id: number;
  name: string;
  short_name: string;
  level: string;
}

/** Central agencies, then one people's committee and one people's court per province. */
export function buildAgencies(provinceNames: readonly string[]): AgencyRow[] {
  const rows: AgencyRow[] = CENTRAL_AGENCIES.map((a, i) => ({ id: i + 1, name: a.name, short_name: a.short, level: a.level }));
  for (const p of provinceNames) rows.push({ id: rows.length + 1, name: `Ủy ban nhân dân ${p}`, short_name: 'UBND', level: 'province' });
  for (const p of provinceNames) rows.push({ id: rows.length + 1, name: `Tòa án nhân dân ${p}`, short_name: 'TAND', level: 'court' });
  return rows;
}

/**
 * The most related documents a legal document lists in each direction (the detail's replaces and
 * replaced_by, the four lists of /relations). A law cited as the basis of every provincial
 * decision has 10⁵ of them: listed whole, one answer would outgrow the gateway's response bound (a
 * 503) and hand out ids past every paging ceiling. The newest are listed; /relations says how many
 * there are in all.
 */
export const RELATED_MAX = 500;

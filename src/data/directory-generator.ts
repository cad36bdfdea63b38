import type { Province } from './admin-units';
import { FAMILY, GIVEN, MIDDLE } from './legal-vocabulary';
import type { Rng } from './random';
import { isoDay, epochDay, opaqueId, Rng as SeededRng } from './random';

/** One organisation of the directory, as the seed and the importer write it. */
export interface DirectoryRow {
  id: string;
  dataset: string;
  tax_code: string;
  name: string;
  address: string;
  province_code: string;
  province_name: string;
  ward_code: string;
  ward_name: string;
  is_active: boolean;
  company_type: string;
  status_id: number;
  cert_date: string | null;
  updated_at: string;
}

interface DirectoryKind {
  path: string;
  prefix: string;
  /** Records at scale 1. */
  base: number;
  name(rng: Rng, province: Province, wardName: string): string;
  companyTypes: readonly string[];
}

const HEROES = ['Lê Quý Đôn', 'Nguyễn Du', 'Trần Phú', 'Chu Văn An', 'Lê Lợi', 'Quang Trung', 'Nguyễn Trãi', 'Trần Hưng Đạo', 'Lý Thường Kiệt', 'Hai Bà Trưng', 'Võ Thị Sáu', 'Nguyễn Thị Minh Khai', 'Phan Bội Châu', 'Kim Đồng', 'Nguyễn Bỉnh Khiêm'];
const FLOWERS = ['Hoa Sen', 'Hoa Mai', 'Sơn Ca', 'Họa Mi', 'Búp Sen Hồng', 'Tuổi Thơ', 'Ánh Dương', 'Bình Minh', 'Hoa Hồng', 'Thỏ Ngọc'];
const STREETS = ['Lê Lợi', 'Trần Hưng Đạo', 'Nguyễn Huệ', 'Hùng Vương', 'Hai Bà Trưng', 'Quang Trung', 'Điện Biên Phủ', 'Nguyễn Văn Cừ', 'Lý Thái Tổ', 'Phạm Văn Đồng', 'Lê Duẩn', 'Nguyễn Văn Linh'];
const UNIVERSITIES = ['Trường Đại học Kinh tế', 'Trường Đại học Sư phạm', 'Trường Đại học Y Dược', 'Trường Đại học Bách khoa', 'Trường Đại học Luật', 'Trường Đại học Nông Lâm', 'Trường Đại học Công nghiệp', 'Học viện Tài chính', 'Trường Đại học Văn hóa'];
const PUBLIC_UNIT = ['Đơn vị sự nghiệp công lập', 'Đơn vị sự nghiệp ngoài công lập'];

const person = (rng: Rng): string => `${rng.pick(FAMILY)} ${rng.pick(MIDDLE)} ${rng.pick(GIVEN)}`;

/** The eight directory datasets; paths and id prefixes as in config/datasets.yaml. */
export const DIRECTORY_KINDS: readonly DirectoryKind[] = [
  { path: 'bailiff-offices', prefix: 'tc_', base: 240, name: (r, p) => `Văn phòng Thừa phát lại ${r.chance(0.5) ? person(r) : p.name}`, companyTypes: ['Doanh nghiệp tư nhân', 'Công ty hợp danh'] },
  { path: 'notary-offices', prefix: 'cc_', base: 400, name: (r, p) => (r.chance(0.2) ? `Phòng Công chứng số ${r.int(1, 9)} ${p.fullName}` : `Văn phòng công chứng ${person(r)}`), companyTypes: ['Công ty hợp danh', 'Đơn vị sự nghiệp công lập'] },
  { path: 'law-firms', prefix: 'ls_', base: 500, name: (r) => (r.chance(0.6) ? `Công ty Luật TNHH ${r.pick(HEROES)} ${r.pick(['và Cộng sự', 'Việt Nam', 'Quốc tế'])}` : `Văn phòng Luật sư ${person(r)}`), companyTypes: ['Công ty TNHH một thành viên', 'Công ty TNHH hai thành viên trở lên', 'Công ty hợp danh', 'Doanh nghiệp tư nhân'] },
  { path: 'preschools', prefix: 'mn_', base: 700, name: (r, _p, w) => `Trường Mầm non ${r.chance(0.5) ? w : r.pick(FLOWERS)}`, companyTypes: PUBLIC_UNIT },
  { path: 'primary-schools', prefix: 'th_', base: 700, name: (r, _p, w) => `Trường Tiểu học ${r.chance(0.5) ? w : r.pick(HEROES)}`, companyTypes: PUBLIC_UNIT },
  { path: 'lower-secondary-schools', prefix: 'thcs_', base: 500, name: (r, _p, w) => `Trường Trung học cơ sở ${r.chance(0.5) ? w : r.pick(HEROES)}`, companyTypes: PUBLIC_UNIT },
  { path: 'upper-secondary-schools', prefix: 'thpt_', base: 300, name: (r) => `Trường Trung học phổ thông ${r.pick(HEROES)}`, companyTypes: PUBLIC_UNIT },
  { path: 'higher-education-institutions', prefix: 'dh_', base: 120, name: (r, p) => `${r.pick(UNIVERSITIES)} ${p.name}`, companyTypes: PUBLIC_UNIT },
];

/** Tax-authority status codes; 0 and 2 still hold a live tax code, so they count as active. */
export const DIRECTORY_STATUSES = [
  { id: 0, name: 'Người nộp thuế đang hoạt động', active: true },
  { id: 1, name: 'Ngừng hoạt động và đã đóng mã số thuế', active: false },
  { id: 2, name: 'Tạm ngừng hoạt động, kinh doanh', active: true },
  { id: 3, name: 'Ngừng hoạt động nhưng chưa hoàn thành thủ tục đóng mã số thuế', active: false },
  { id: 4, name: 'Không hoạt động tại địa chỉ đã đăng ký', active: false },
] as const;

/** A 10-digit tax code whose last digit is the check digit of the tax authority's scheme. */
export function makeTaxCode(rng: Rng): string {
  const weights = [31, 29, 23, 19, 17, 13, 7, 5, 3];
  for (;;) {
    const digits = [0, rng.int(1, 9), ...Array.from({ length: 7 }, () => rng.int(0, 9))];
    const check = 10 - (digits.reduce((s, d, i) => s + d * weights[i]!, 0) % 11);
    if (check >= 0 && check <= 9) return digits.join('') + String(check);
  }
}

/** Every directory dataset at the given scale; about 2% of records have an address that was not normalised. */
export function generateDirectory(seed: number, scale: number, provinces: readonly Province[]): DirectoryRow[] {
  const rng = new SeededRng(seed * 7919 + 17);
  const taxCodes = new Set<string>();
  const rows: DirectoryRow[] = [];
  for (const kind of DIRECTORY_KINDS) {
    const count = Math.max(8, Math.round(kind.base * scale));
    for (let n = 0; n < count; n++) {
      const province = rng.pick(provinces);
      const ward = rng.pick(province.wards);
      // The first two of each dataset are unnormalised so small test seeds have them too.
      const unnormalised = n < 2 || rng.chance(0.02);
      let tax = makeTaxCode(rng);
      while (taxCodes.has(tax)) tax = makeTaxCode(rng);
      taxCodes.add(tax);
      const status = rng.weighted(DIRECTORY_STATUSES.map((s) => [s, s.id === 0 ? 80 : 5] as const));
      const street = `Số ${rng.int(1, 350)} đường ${rng.pick(STREETS)}`;
      const cert = epochDay('2000-01-01') + rng.int(0, 9300);
      rows.push({
        id: opaqueId(kind.prefix, seed, kind.path, n),
        dataset: kind.path,
        tax_code: tax,
        name: kind.name(rng, province, ward.name),
        address: unnormalised ? `${street}, thôn ${rng.int(1, 12)}, xã cũ ${ward.name}, huyện ${rng.pick(HEROES)} (chưa cập nhật địa giới mới)` : `${street}, ${ward.fullName}, ${province.fullName}`,
        province_code: unnormalised ? '' : province.code,
        province_name: unnormalised ? '' : province.fullName,
        ward_code: unnormalised ? '' : ward.code,
        ward_name: unnormalised ? '' : ward.fullName,
        is_active: status.active,
        company_type: rng.pick(kind.companyTypes),
        status_id: status.id,
        cert_date: isoDay(cert),
        updated_at: new Date(Date.UTC(2025, rng.int(0, 11), rng.int(1, 28), rng.int(0, 23), rng.int(0, 59))).toISOString(),
      });
    }
  }
  return rows;
}

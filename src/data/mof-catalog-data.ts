import type { Province } from './admin-units';
import { CENTRAL_AGENCIES } from './legal-catalogs';

export interface MofCatalogItem {
  code: string;
  name: string;
  is_active: boolean;
}

export interface MofCatalog {
  path: string;
  prefix: string;
  items: MofCatalogItem[];
}

const list = (pairs: readonly (readonly [string, string])[], inactive: readonly string[] = []): MofCatalogItem[] =>
  pairs.map(([code, name]) => ({ code, name, is_active: !inactive.includes(code) }));

const BUSINESS_UNIT_TYPES = [
  ['01', 'Trụ sở chính'],
  ['02', 'Chi nhánh'],
  ['03', 'Văn phòng đại diện'],
  ['04', 'Địa điểm kinh doanh'],
  ['05', 'Đơn vị phụ thuộc'],
  ['06', 'Đơn vị trực thuộc'],
  ['07', 'Chi nhánh doanh nghiệp nước ngoài'],
  ['08', 'Văn phòng đại diện của thương nhân nước ngoài'],
  ['09', 'Văn phòng điều hành của nhà thầu nước ngoài'],
  ['10', 'Địa điểm kinh doanh của chi nhánh'],
  ['11', 'Hộ kinh doanh'],
  ['12', 'Cơ sở sản xuất, kinh doanh'],
  ['13', 'Kho hàng'],
] as const;

/** The eleven finance-ministry catalogues; paths and id prefixes as in config/datasets.yaml. */
export function mofCatalogs(provinces: readonly Province[]): MofCatalog[] {
  const pad = (n: number): string => String(n).padStart(2, '0');
  const ministries = CENTRAL_AGENCIES.filter((a) => a.level === 'ministry' || a.level === 'central');
  return [
    { path: 'dmdc-business-unit-types', prefix: 'lhdv_', items: list(BUSINESS_UNIT_TYPES) },
    {
      path: 'dmdc-document-exchange-identifiers',
      prefix: 'mdd_',
      items: [
        ...ministries.map((a, i) => ({ code: `000.00.00.G${pad(i + 1)}`, name: a.name, is_active: true })),
        ...provinces.map((p, i) => ({ code: `000.00.00.H${pad(i + 1)}`, name: `Ủy ban nhân dân ${p.fullName}`, is_active: true })),
        ...provinces.map((p, i) => ({ code: `000.05.00.H${pad(i + 1)}`, name: `Sở Tài chính ${p.fullName}`, is_active: true })),
      ],
    },
    {
      path: 'dmdc-document-exchange-identifiers-tt10',
      prefix: 'mdt_',
      items: provinces.map((p, i) => ({ code: `H${pad(i + 1)}.05`, name: `Sở Tài chính ${p.fullName}`, is_active: true })),
    },
    {
      path: 'dmdc-document-system-identifiers',
      prefix: 'mhs_',
      items: ministries.map((a) => ({ code: `${a.short}.QLVB`, name: `Hệ thống quản lý văn bản và điều hành của ${a.name}`, is_active: true })),
    },
    { path: 'dmdc-academic-titles', prefix: 'hhhv_', items: list([['GS', 'Giáo sư'], ['PGS', 'Phó giáo sư'], ['TSKH', 'Tiến sĩ khoa học'], ['TS', 'Tiến sĩ'], ['THS', 'Thạc sĩ'], ['CN', 'Cử nhân'], ['KS', 'Kỹ sư']]) },
    { path: 'dmdc-disciplinary-forms', prefix: 'hthk_', items: list([['01', 'Khiển trách'], ['02', 'Cảnh cáo'], ['03', 'Hạ bậc lương'], ['04', 'Giáng chức'], ['05', 'Cách chức'], ['06', 'Buộc thôi việc'], ['07', 'Hạ ngạch']], ['07']) },
    { path: 'dmdc-share-types', prefix: 'lcp_', items: list([['PT', 'Cổ phần phổ thông'], ['UDBQ', 'Cổ phần ưu đãi biểu quyết'], ['UDCT', 'Cổ phần ưu đãi cổ tức'], ['UDHL', 'Cổ phần ưu đãi hoàn lại'], ['UDK', 'Cổ phần ưu đãi khác']]) },
    { path: 'dmdc-commendation-types', prefix: 'lkt_', items: list([['01', 'Huân chương'], ['02', 'Huy chương'], ['03', 'Danh hiệu vinh dự nhà nước'], ['04', 'Giải thưởng Hồ Chí Minh, Giải thưởng Nhà nước'], ['05', 'Kỷ niệm chương'], ['06', 'Bằng khen'], ['07', 'Giấy khen']]) },
    { path: 'dmdc-capital-source-types', prefix: 'lnv_', items: list([['NSNN', 'Vốn ngân sách nhà nước'], ['ODA', 'Vốn hỗ trợ phát triển chính thức (ODA)'], ['VVUD', 'Vốn vay ưu đãi của nhà tài trợ nước ngoài'], ['TPCP', 'Vốn trái phiếu Chính phủ'], ['DNNN', 'Vốn của doanh nghiệp nhà nước'], ['TC', 'Vốn tự có'], ['FDI', 'Vốn đầu tư trực tiếp nước ngoài'], ['KHAC', 'Nguồn vốn hợp pháp khác']]) },
    { path: 'dmdc-emulation-titles-awards', prefix: 'dhtd_', items: list([['CSTDTQ', 'Chiến sĩ thi đua toàn quốc'], ['CSTDB', 'Chiến sĩ thi đua cấp bộ, ban, ngành, tỉnh'], ['CSTDCS', 'Chiến sĩ thi đua cơ sở'], ['LDTT', 'Lao động tiên tiến'], ['TTLDXS', 'Tập thể lao động xuất sắc'], ['TTLDTT', 'Tập thể lao động tiên tiến'], ['CTDCP', 'Cờ thi đua của Chính phủ'], ['CTDB', 'Cờ thi đua cấp bộ, ban, ngành, tỉnh']]) },
    { path: 'dmdc-legal-statuses', prefix: 'ttpl_', items: list([['00', 'Đang hoạt động'], ['01', 'Tạm ngừng kinh doanh'], ['02', 'Đang làm thủ tục giải thể'], ['03', 'Đã giải thể'], ['04', 'Đang làm thủ tục phá sản'], ['05', 'Đã phá sản'], ['06', 'Bị thu hồi giấy chứng nhận đăng ký'], ['07', 'Chuyển đổi loại hình']]) },
  ];
}

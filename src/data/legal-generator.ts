import type { AgencyRow, LegalDatabase } from './legal-catalogs';
import { LEGAL_FIELDS, STATUS } from './legal-catalogs';
import { legalContentEn, legalContentHtml } from './legal-content';
import { CASE_KINDS, CODES, COUNTRIES, FAMILY, FIELD_VOCABULARY, GIVEN, MIDDLE, STANDARD_TITLES, TREATY_TOPICS } from './legal-vocabulary';
import type { Rng } from './random';
import { epochDay, isoDay, opaqueId, rngFor } from './random';

/** One row of legal_documents as the seed and the importer write it. */
export interface LegalDocumentRow {
  id: string;
  code: string;
  name: string;
  database: LegalDatabase;
  type_id: number;
  field_id: number;
  agency_id: number;
  status_id: number;
  issued_date: string;
  effective_date: string | null;
  expired_date: string | null;
  source_url: string;
  signer: string;
  content_html: string | null;
  content_en_html: string | null;
}

export interface LegalGenContext {
  seed: number;
  agencies: readonly AgencyRow[];
  /** Without full text the rows stay small (the search benchmark loads half a million). */
  withContent: boolean;
}

/** The sample data's "today": statuses are decided against it so the data does not age. */
const REFERENCE_DAY = epochDay('2025-12-31');
const FIRST_DAY = epochDay('1995-01-01');

const DATABASE_WEIGHTS: readonly (readonly [LegalDatabase, number])[] = [
  ['vbqppl', 60],
  ['cong-van', 15],
  ['ban-an', 11],
  ['tieu-chuan', 7],
  ['dieu-uoc', 7],
];

/** Record n of the corpus; the same (seed, n) always gives the same document. */
export function makeLegalDocument(ctx: LegalGenContext, n: number): LegalDocumentRow {
  const rng = rngFor(ctx.seed, 'legal', n);
  const database = rng.weighted(DATABASE_WEIGHTS);
  // Skewed to recent years, as real corpora are.
  const day = REFERENCE_DAY - Math.floor(Math.pow(rng.next(), 1.6) * (REFERENCE_DAY - FIRST_DAY));
  const year = Number(isoDay(day).slice(0, 4));
  const fieldId = rng.int(1, LEGAL_FIELDS.length);
  const vocab = FIELD_VOCABULARY[fieldId - 1]!;
  const topic = rng.pick(vocab.topics);
  const d = describe(rng, ctx, database, year, fieldId, topic, vocab.law);
  const effective = database === 'ban-an' || database === 'cong-van' ? day : day + (d.typeId === 3 ? 180 : rng.int(0, 60));
  const { statusId, expired } = pickStatus(rng, database, effective);
  const id = opaqueId('vb_', ctx.seed, 'legal', n);
  const signer = `${rng.pick(FAMILY)} ${rng.pick(MIDDLE)} ${rng.pick(GIVEN)}`;
  const withEn = ctx.withContent && database !== 'ban-an' && rng.chance(0.3);
  return {
    id,
    code: d.code,
    name: d.name,
    database,
    type_id: d.typeId,
    field_id: fieldId,
    agency_id: d.agencyId,
    status_id: statusId,
    issued_date: isoDay(day),
    effective_date: isoDay(effective),
    expired_date: expired === null ? null : isoDay(expired),
    source_url: `https://vanban.example.vn/${database}/${id}`,
    signer,
    content_html: ctx.withContent ? legalContentHtml(rng, { name: d.name, code: d.code, topic, signer, agency: agencyName(ctx, d.agencyId) }) : null,
    content_en_html: withEn ? legalContentEn(rng, { code: d.code, topic }) : null,
  };
}

function pickStatus(rng: Rng, database: LegalDatabase, effective: number): { statusId: number; expired: number | null } {
  if (database === 'ban-an' || database === 'cong-van') return { statusId: rng.chance(0.8) ? STATUS.undetermined : STATUS.inEffect, expired: null };
  if (effective > REFERENCE_DAY) return { statusId: STATUS.notYet, expired: null };
  const s = rng.weighted([
    [STATUS.inEffect, 62],
    [STATUS.expired, 22],
    [STATUS.cancelled, 4],
    [STATUS.noLongerAppropriate, 5],
    [STATUS.undetermined, 7],
  ] as const);
  const ends = s === STATUS.expired || s === STATUS.cancelled;
  return { statusId: s, expired: ends ? Math.min(REFERENCE_DAY, effective + rng.int(200, 3000)) : null };
}

function agencyName(ctx: LegalGenContext, id: number): string {
  return ctx.agencies[id - 1]?.name ?? '';
}

function agencyId(ctx: LegalGenContext, short: string): number {
  return ctx.agencies.find((a) => a.short_name === short)?.id ?? 1;
}

/** Legislature number of the National Assembly sitting in a year (XV from 2021, XVI from 2026). */
function legislature(year: number): number {
  return year >= 2026 ? 16 : year >= 2021 ? 15 : year >= 2016 ? 14 : year >= 2011 ? 13 : year >= 2007 ? 12 : year >= 2002 ? 11 : 10;
}

interface Described {
  typeId: number;
  agencyId: number;
  code: string;
  name: string;
}

const MINISTRIES = ['BTC', 'BTP', 'BCA', 'BXD', 'BYT', 'BGDĐT', 'BNNMT', 'BCT', 'BKHCN', 'BNV', 'NHNN', 'BVHTTDL'];

function describe(rng: Rng, ctx: LegalGenContext, db: LegalDatabase, year: number, fieldId: number, topic: string, law?: string): Described {
  const n = rng.int(1, 199);
  const provinceAgency = (kind: 'UBND' | 'TAND'): AgencyRow => rng.pick(ctx.agencies.filter((a) => a.short_name === kind));
  if (db === 'cong-van') {
    const short = rng.pick([...MINISTRIES, 'CT', 'BHXH']);
    const unit = rng.pick(['TCT', 'CS', 'PC', 'KHTC', 'VP', 'QLCL']);
    const what = rng.pick(['hướng dẫn', 'giải đáp vướng mắc về', 'triển khai thực hiện quy định về', 'tăng cường công tác']);
    return { typeId: 11, agencyId: agencyId(ctx, short), code: `${rng.int(100, 9999)}/${short}-${unit}`, name: `Công văn về việc ${what} ${topic}` };
  }
  if (db === 'ban-an') {
    const kind = rng.pick(CASE_KINDS);
    const appeal = rng.weighted([['ST', 5], ['PT', 4], ['GĐT', 1]] as const);
    const court = appeal === 'GĐT' ? agencyId(ctx, 'TANDTC') : provinceAgency('TAND').id;
    const code = `${n}/${year}/${kind.code}-${appeal}`;
    const label = appeal === 'GĐT' ? 'Quyết định giám đốc thẩm' : 'Bản án';
    return { typeId: appeal === 'GĐT' ? 13 : 12, agencyId: court, code, name: `${label} ${code} về ${rng.pick(kind.disputes)}` };
  }
  if (db === 'dieu-uoc') {
    const name = `Hiệp định giữa Chính phủ nước Cộng hòa xã hội chủ nghĩa Việt Nam và Chính phủ ${rng.pick(COUNTRIES)} về ${rng.pick(TREATY_TOPICS)}`;
    return { typeId: 14, agencyId: agencyId(ctx, rng.pick(['CP', 'BNG', 'CTN'])), code: `${n}/${year}/TB-LPQT`, name };
  }
  if (db === 'tieu-chuan') {
    const title = rng.pick(STANDARD_TITLES);
    if (rng.chance(0.5)) return { typeId: 15, agencyId: agencyId(ctx, 'BKHCN'), code: `TCVN ${rng.int(1000, 13999)}:${year}`, name: title };
    const short = rng.pick(MINISTRIES);
    return { typeId: 16, agencyId: agencyId(ctx, short), code: `QCVN ${String(rng.int(1, 99)).padStart(2, '0')}:${year}/${short}`, name: `Quy chuẩn kỹ thuật quốc gia về ${lowerFirst(title)}` };
  }
  const kind = rng.weighted([['luat', 6], ['bo-luat', 1], ['phap-lenh', 2], ['nq', 8], ['nd', 20], ['qd', 22], ['tt', 30], ['ct', 5], ['vbhn', 6]] as const);
  const leg = legislature(year);
  const lawName = law ?? 'Tổ chức Chính phủ';
  switch (kind) {
    case 'luat':
      return { typeId: 3, agencyId: agencyId(ctx, 'QH'), code: `${n}/${year}/QH${leg}`, name: rng.chance(0.5) ? `Luật ${lawName}` : `Luật sửa đổi, bổ sung một số điều của Luật ${lawName}` };
    case 'bo-luat':
      return { typeId: 2, agencyId: agencyId(ctx, 'QH'), code: `${n}/${year}/QH${leg}`, name: `Bộ luật ${rng.pick(CODES)}` };
    case 'phap-lenh':
      return { typeId: 4, agencyId: agencyId(ctx, 'UBTVQH'), code: `${n}/${year}/UBTVQH${leg}`, name: `Pháp lệnh về ${topic}` };
    case 'nq':
      if (rng.chance(0.5)) return { typeId: 5, agencyId: agencyId(ctx, 'CP'), code: `${n}/NQ-CP`, name: `Nghị quyết về ${topic}` };
      return { typeId: 5, agencyId: provinceAgency('UBND').id, code: `${n}/${year}/NQ-HĐND`, name: `Nghị quyết quy định ${topic}` };
    case 'nd': {
      const name = rng.pick([`Nghị định quy định chi tiết một số điều của Luật ${lawName}`, `Nghị định quy định về ${topic}`, `Nghị định quy định xử phạt vi phạm hành chính trong lĩnh vực ${lowerFirst(LEGAL_FIELDS[fieldId - 1]!.name)}`, `Nghị định sửa đổi, bổ sung một số điều của các nghị định quy định về ${topic}`]);
      return { typeId: 6, agencyId: agencyId(ctx, 'CP'), code: `${n}/${year}/NĐ-CP`, name };
    }
    case 'qd': {
      if (rng.chance(0.4)) return { typeId: 7, agencyId: agencyId(ctx, 'TTg'), code: `${n}/${year}/QĐ-TTg`, name: rng.pick([`Quyết định phê duyệt Đề án ${topic}`, `Quyết định ban hành Quy chế ${topic}`]) };
      const ubnd = provinceAgency('UBND');
      return { typeId: 7, agencyId: ubnd.id, code: `${n}/${year}/QĐ-UBND`, name: `Quyết định ban hành quy định về ${topic} trên địa bàn ${ubnd.name.replace('Ủy ban nhân dân ', '')}` };
    }
    case 'tt': {
      const short = rng.pick(MINISTRIES);
      const name = rng.pick([`Thông tư hướng dẫn ${topic}`, `Thông tư quy định chi tiết và hướng dẫn thi hành một số điều của Luật ${lawName}`, `Thông tư sửa đổi, bổ sung một số điều của Thông tư quy định về ${topic}`]);
      return { typeId: 8, agencyId: agencyId(ctx, short), code: `${String(n).padStart(2, '0')}/${year}/TT-${short}`, name };
    }
    case 'ct':
      return { typeId: 10, agencyId: agencyId(ctx, 'TTg'), code: `${String(n).padStart(2, '0')}/CT-TTg`, name: `Chỉ thị về việc tăng cường ${topic}` };
    case 'vbhn': {
      const short = rng.pick(MINISTRIES);
      return { typeId: 17, agencyId: agencyId(ctx, short), code: `${n}/VBHN-${short}`, name: `Văn bản hợp nhất Nghị định quy định về ${topic}` };
    }
  }
}

function lowerFirst(s: string): string {
  return s.charAt(0).toLowerCase() + s.slice(1);
}

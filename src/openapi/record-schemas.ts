import type { SchemaObject } from './openapi-types';
import { RELATED_MAX } from '../data/legal-catalogs';

/**
 * Record shapes of the datasets the API reference describes field by field, keyed by dataset path.
 * A dataset without an entry is documented with a generic record (an object with `id`), so a
 * dataset added to datasets.yaml appears in the document without code changes; describing it
 * better is an entry here. Plan requirements of fields are not written here: the generator adds
 * them from datasets.yaml (`fields`), the one place that decides them.
 */
export interface RecordVariant {
  /** Component name; datasets of one family share it. */
  name: string;
  schema: SchemaObject;
}

export interface RecordShape {
  /** Records of GET /v1/{path}. */
  list: RecordVariant;
  /** The record of GET /v1/{path}/{id}: list fields plus detail-only ones. */
  detail?: RecordVariant;
  /** `data` of GET /v1/{path}/{id}/{sub}. */
  subresources?: Record<string, RecordVariant>;
}

const str = (description: string): SchemaObject => ({ type: 'string', description });
const nullableStr = (description: string): SchemaObject => ({ type: ['string', 'null'], description });
const date = (description: string, nullable = false): SchemaObject => ({
  type: nullable ? ['string', 'null'] : 'string',
  format: 'date',
  description,
});

/**
 * A closed object: an undocumented field in a response is a contract change the tests catch. Every
 * field is always present (null when empty), so required; those a lower plan does not get are left
 * out of `required` per plan (record-components.ts).
 */
function record(properties: Record<string, SchemaObject>, description: string): SchemaObject {
  return {
    type: 'object',
    description,
    additionalProperties: false,
    required: Object.keys(properties),
    properties,
  };
}

/** The detail: the listed fields and more. */
function extend(base: SchemaObject, more: Record<string, SchemaObject>, description: string): SchemaObject {
  const props = base.properties as Record<string, SchemaObject>;
  return record({ ...props, ...more }, description);
}

const idName = (what: string): SchemaObject =>
  record({ id: { type: 'integer', description: 'Mã / Id.' }, name: str('Tên / Name.') }, what);

const relatedDocument = record(
  {
    id: str('Mã văn bản liên quan / Id of the related document.'),
    code: str('Số hiệu / Document number.'),
    name: str('Tên văn bản / Name.'),
    issued_date: date('Ngày ban hành / Issue date.'),
  },
  'Văn bản liên quan / A related document.',
);

const legalDocument = record(
  {
    id: str('Mã văn bản (tiền tố vb_) / Document id (prefix vb_).'),
    code: str('Số hiệu văn bản / Document number.'),
    name: str('Tên văn bản / Name.'),
    database: {
      type: 'string',
      enum: ['vbqppl', 'ban-an', 'dieu-uoc', 'tieu-chuan', 'cong-van'],
      description:
        'Cơ sở dữ liệu / Database: vbqppl = normative legal documents, ban-an = court judgments, dieu-uoc = treaties, tieu-chuan = standards, cong-van = official letters.',
    },
    type: idName('Loại văn bản (/v1/catalogs/document-types) / Document type.'),
    field: idName('Lĩnh vực (/v1/catalogs/law-fields) / Law field.'),
    agency: idName('Cơ quan ban hành (/v1/catalogs/agencies) / Issuing agency.'),
    status: idName('Tình trạng hiệu lực (/v1/catalogs/statuses) / Validity status; id 1 = in effect.'),
    issued_date: date('Ngày ban hành / Issue date.'),
    effective_date: date('Ngày hiệu lực / Effective date.', true),
    expired_date: date('Ngày hết hiệu lực / Expiry date.', true),
    source_url: nullableStr('Nguồn / Source address.'),
  },
  'Văn bản pháp luật (danh sách) / Legal document as listed.',
);

const legalDocumentDetail = extend(
  legalDocument,
  {
    signer: nullableStr('Người ký / Signer.'),
    content_html: nullableStr(
      'Toàn văn HTML; gói thấp hơn nhận bản xem trước / Full text as HTML; lower plans get a preview.',
    ),
    content_en_html: nullableStr('Bản tiếng Anh (HTML) / English text (HTML).'),
    replaced_by: {
      type: 'array',
      items: relatedDocument,
      maxItems: RELATED_MAX,
      description: `Bị thay thế bởi: tối đa ${RELATED_MAX} văn bản mới nhất; tổng số ở relations / Replaced by: the newest ${RELATED_MAX} at most; relations gives how many.`,
    },
    replaces: {
      type: 'array',
      items: relatedDocument,
      maxItems: RELATED_MAX,
      description: `Thay thế cho: tối đa ${RELATED_MAX} văn bản mới nhất; tổng số ở relations / Replaces: the newest ${RELATED_MAX} at most; relations gives how many.`,
    },
  },
  'Văn bản pháp luật (chi tiết) / Legal document detail.',
);

/** One direction of the relations: the newest RELATED_MAX documents, and how many there are. */
const direction = (name: string, vi: string, en: string): Record<string, SchemaObject> => ({
  [name]: {
    type: 'array',
    items: relatedDocument,
    maxItems: RELATED_MAX,
    description: `${vi}, mới nhất trước, tối đa ${RELATED_MAX} / ${en}, newest first, at most ${RELATED_MAX}.`,
  },
  [`${name}_total`]: {
    type: 'integer',
    minimum: 0,
    description: `Tổng số (${name} liệt kê tối đa ${RELATED_MAX}) / How many in all (${name} lists at most ${RELATED_MAX}).`,
  },
});

const relations = record(
  {
    ...direction('replaces', 'Văn bản được thay thế', 'Documents replaced'),
    ...direction('replaced_by', 'Văn bản thay thế', 'Replaced by'),
    ...direction('cites', 'Văn bản được dẫn chiếu', 'Documents cited'),
    ...direction('cited_by', 'Văn bản dẫn chiếu', 'Cited by'),
  },
  'Quan hệ văn bản / Relations of a document.',
);

const organisation = record(
  {
    id: str('Mã tổ chức / Organisation id.'),
    tax_code: str('Mã số thuế / Tax code.'),
    name: str('Tên / Name.'),
    address: str('Địa chỉ / Address.'),
    province_name: str(
      'Tỉnh/thành phố; rỗng khi không chuẩn hóa được / Province; empty when not normalised.',
    ),
    ward_name: str('Phường/xã; rỗng khi không chuẩn hóa được / Ward; empty when not normalised.'),
    is_active: { type: 'boolean', description: 'Đang hoạt động / Active (tax code issued, not ceased).' },
  },
  'Tổ chức (danh sách) / Organisation as listed.',
);

const organisationDetail = extend(
  organisation,
  {
    province_code: str('Mã tỉnh; rỗng khi không chuẩn hóa được / Province code; empty when not normalised.'),
    ward_code: str('Mã phường/xã; rỗng khi không chuẩn hóa được / Ward code; empty when not normalised.'),
    company_type: str('Loại hình / Company type.'),
    status_id: { type: 'integer', description: 'Mã trạng thái / Status code.' },
    cert_date: date('Ngày cấp / Certificate date.', true),
    updated_at: { type: 'string', format: 'date-time', description: 'Cập nhật lúc / Updated at.' },
  },
  'Tổ chức (chi tiết) / Organisation detail.',
);

const mofItem = record(
  { id: str('Mã bản ghi / Record id.'), code: str('Mã / Code.'), name: str('Tên / Name.') },
  'Mục danh mục dùng chung (danh sách) / Shared catalogue item as listed.',
);

const mofItemDetail = extend(
  mofItem,
  { is_active: { type: 'boolean', description: 'Đang sử dụng / Active.' } },
  'Mục danh mục dùng chung (chi tiết) / Shared catalogue item detail.',
);

const catalogItem = (
  name: string,
  idType: 'integer' | 'string',
  more: Record<string, SchemaObject>,
): RecordVariant => ({
  name,
  schema: record(
    {
      id: { type: idType, description: 'Giá trị dùng cho bộ lọc / Value for the filter.' },
      name: str('Tên / Name.'),
      ...more,
    },
    'Mục danh mục lọc / Filter catalogue item.',
  ),
});

const family = (paths: readonly string[], shape: RecordShape): [string, RecordShape][] =>
  paths.map((p) => [p, shape]);

/** Organisation directory: bailiff offices and the siblings the reference names. */
export const DIRECTORY_PATHS = [
  'bailiff-offices',
  'notary-offices',
  'law-firms',
  'preschools',
  'primary-schools',
  'lower-secondary-schools',
  'upper-secondary-schools',
  'higher-education-institutions',
] as const;

/** Finance-ministry shared catalogues: business unit types and the siblings the reference names. */
export const MOF_CATALOG_PATHS = [
  'dmdc-business-unit-types',
  'dmdc-document-exchange-identifiers',
  'dmdc-document-exchange-identifiers-tt10',
  'dmdc-document-system-identifiers',
  'dmdc-academic-titles',
  'dmdc-disciplinary-forms',
  'dmdc-share-types',
  'dmdc-commendation-types',
  'dmdc-capital-source-types',
  'dmdc-emulation-titles-awards',
  'dmdc-legal-statuses',
] as const;

export const RECORD_SCHEMAS: ReadonlyMap<string, RecordShape> = new Map<string, RecordShape>([
  [
    'legal-documents',
    {
      list: { name: 'LegalDocument', schema: legalDocument },
      detail: { name: 'LegalDocumentDetail', schema: legalDocumentDetail },
      subresources: { relations: { name: 'LegalDocumentRelations', schema: relations } },
    },
  ],
  [
    'catalogs/databases',
    {
      list: catalogItem('CatalogDatabase', 'string', { description: str('Mô tả / Description.') }),
    },
  ],
  ['catalogs/document-types', { list: catalogItem('CatalogDocumentType', 'integer', {}) }],
  ['catalogs/law-fields', { list: catalogItem('CatalogLawField', 'integer', {}) }],
  [
    'catalogs/statuses',
    {
      list: catalogItem('CatalogStatus', 'integer', { name_en: str('Tên tiếng Anh / English name.') }),
    },
  ],
  [
    'catalogs/agencies',
    {
      list: catalogItem('CatalogAgency', 'integer', { short_name: str('Tên viết tắt / Short name.') }),
    },
  ],
  ...family(DIRECTORY_PATHS, {
    list: { name: 'Organisation', schema: organisation },
    detail: { name: 'OrganisationDetail', schema: organisationDetail },
  }),
  ...family(MOF_CATALOG_PATHS, {
    list: { name: 'SharedCatalogItem', schema: mofItem },
    detail: { name: 'SharedCatalogItemDetail', schema: mofItemDetail },
  }),
]);

import type { LegalDocumentRow } from '../../data/legal-generator';

export const LEGAL_DOCUMENT_COLUMNS = [
  'id',
  'code',
  'name',
  'database',
  'type_id',
  'field_id',
  'agency_id',
  'status_id',
  'issued_date',
  'effective_date',
  'expired_date',
  'source_url',
  'signer',
  'content_html',
  'content_en_html',
] as const;

export function legalDocumentValues(d: LegalDocumentRow): unknown[] {
  return LEGAL_DOCUMENT_COLUMNS.map((c) => d[c]);
}

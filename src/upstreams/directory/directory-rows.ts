import type { DirectoryRow } from '../../data/directory-generator';

export const DIRECTORY_COLUMNS = [
  'id',
  'dataset',
  'tax_code',
  'name',
  'address',
  'province_code',
  'province_name',
  'ward_code',
  'ward_name',
  'is_active',
  'company_type',
  'status_id',
  'cert_date',
  'updated_at',
] as const;

export function directoryValues(r: DirectoryRow): unknown[] {
  return DIRECTORY_COLUMNS.map((c) => r[c]);
}

import { createHash } from 'node:crypto';

const PREFIX = {
  provinces: 'tinh_',
  wards: 'xa_',
  'legacy-provinces': 'tinhcu_',
  'legacy-wards': 'xacu_',
  'province-boundaries': 'rgtinh_',
  'ward-boundaries': 'rgxa_',
} as const;

export type AdminUnitDataset = keyof typeof PREFIX;

/**
 * The id an administrative unit keeps for ever (migrations/admin-units/002_opaque_ids.sql), written
 * out again here so that any change to the ids fails the tests that use it.
 */
export function unitId(dataset: AdminUnitDataset, code: string): string {
  return PREFIX[dataset] + createHash('md5').update(`${dataset}:${code}`).digest('hex').slice(0, 14);
}

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../util/project-root';

export interface Ward {
  code: string;
  name: string;
  fullName: string;
}

export interface Province {
  code: string;
  name: string;
  fullName: string;
  wards: Ward[];
}

interface RawUnit {
  Code: string;
  Name: string;
  FullName: string;
  Wards: { Code: string; Name: string; FullName: string }[];
}

/** The 34 provinces and their wards after the 2025 reorganisation (data/vn-admin-units, MIT). */
export function loadAdminUnits(root: string = projectRoot()): Province[] {
  const raw = JSON.parse(readFileSync(join(root, 'data', 'vn-admin-units', 'units-2026.json'), 'utf8')) as RawUnit[];
  return raw.map((p) => ({
    code: p.Code,
    name: p.Name,
    fullName: p.FullName,
    wards: p.Wards.map((w) => ({ code: w.Code, name: w.Name, fullName: w.FullName })),
  }));
}

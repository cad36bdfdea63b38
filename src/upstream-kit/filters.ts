import type { FilterSpec, ParamType } from './dataset-spec';

/** Equality filter on a column; dates are cast so a text parameter compares as a date. */
export function eq(column: string, param: ParamType, dflt?: string): FilterSpec {
  return { param, default: dflt, where: (p) => `${column} = ${cast(p, param)}` };
}

export function gte(column: string, param: ParamType): FilterSpec {
  return { param, where: (p) => `${column} >= ${cast(p, param)}` };
}

export function lte(column: string, param: ParamType): FilterSpec {
  return { param, where: (p) => `${column} <= ${cast(p, param)}` };
}

function cast(placeholder: string, param: ParamType): string {
  switch (param.type) {
    case 'date':
      return `${placeholder}::date`;
    case 'integer':
      return `${placeholder}::int`;
    case 'boolean':
      return `${placeholder}::boolean`;
    default:
      return `${placeholder}::text`;
  }
}

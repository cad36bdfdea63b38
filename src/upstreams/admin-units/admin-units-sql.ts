// SQL fragments shared by the admin-units datasets (trusted code; aliases are chosen by the caller).

/** {id, code, name} of a unit, to nest a province in a ward. */
export const unitRef = (a: string): string =>
  `json_build_object('id', ${a}.id, 'code', ${a}.code, 'name', ${a}.name)`;

/** [minLng, minLat, maxLng, maxLat] (GeoJSON order), null without a boundary. */
export const bbox = (a: string): string =>
  `CASE WHEN ${a}.min_lng IS NULL THEN NULL ELSE json_build_array(${a}.min_lng, ${a}.min_lat, ${a}.max_lng, ${a}.max_lat) END`;

/** How the 2025 mapping wrote the unit, only where it differs from the current list. */
export const mapping2025 = (a: string): string =>
  `CASE WHEN ${a}.mapping_code IS NULL THEN NULL ELSE json_build_object('code', ${a}.mapping_code, 'full_name', ${a}.mapping_full_name) END`;

/** to_json: the same JSON array from both drivers, whatever their text[] parsing. */
export const notes = (a: string): string => `to_json(${a}.mapping_notes)`;

export const amended =
  (a: string) =>
  (p: string): string =>
    `(cardinality(${a}.mapping_notes) > 0) = ${p}::boolean`;

/** A JSON array of rows of a sub-select, [] when none. */
export const jsonList = (item: string, from: string, order: string): string =>
  `(SELECT coalesce(json_agg(${item} ORDER BY ${order}), '[]'::json) FROM ${from})`;

/** Old province → new provinces; new province ← old provinces. */
export const provincesWentTo = (o: string): string =>
  jsonList(
    `json_build_object('id', n.id, 'code', n.code, 'name', n.name, 'full_name', n.full_name, 'coverage', l.coverage)`,
    `admin_province_links l JOIN admin_provinces n ON n.code = l.new_code WHERE l.old_code = ${o}.code`,
    'n.code',
  );

export const provincesCameFrom = (p: string): string =>
  jsonList(
    `json_build_object('id', o.id, 'code', o.code, 'name', o.name, 'full_name', o.full_name, 'coverage', l.coverage)`,
    `admin_province_links l JOIN admin_legacy_provinces o ON o.code = l.old_code WHERE l.new_code = ${p}.code`,
    'o.code',
  );

/** Old commune → new ward(s), with the code the 2025 mapping used for each. */
export const wardsWentTo = (o: string): string =>
  jsonList(
    `json_build_object('id', n.id, 'code', n.code, 'name', n.name, 'full_name', n.full_name, 'level', n.level,
      'province', ${unitRef('np')}, 'coverage', l.coverage, 'mapping_code', l.mapping_code)`,
    `admin_ward_links l JOIN admin_wards n ON n.code = l.new_code JOIN admin_provinces np ON np.code = n.province_code
      WHERE l.old_code = ${o}.code`,
    'n.code',
  );

/** New ward ← old communes (or commune-less districts), each with its old province. */
export const wardsCameFrom = (w: string): string =>
  jsonList(
    `json_build_object('id', o.id, 'code', o.code, 'name', o.name, 'full_name', o.full_name, 'level', o.level,
      'province', ${unitRef('op')}, 'coverage', l.coverage)`,
    `admin_ward_links l JOIN admin_legacy_wards o ON o.code = l.old_code JOIN admin_legacy_provinces op ON op.code = o.province_code
      WHERE l.new_code = ${w}.code`,
    'o.code',
  );

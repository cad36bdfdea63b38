// Abbreviations people type for longer words in names (folded; see SearchMode.aliases). Such a word
// still matches as itself, so a name that holds the abbreviation is found too.

/** Places: "TP.HCM", "HCM", "HN", "Saigon". */
export const PLACE_ALIASES: Readonly<Record<string, string>> = {
  hcm: 'ho chi minh',
  tphcm: 'thanh pho ho chi minh',
  hn: 'ha noi',
  saigon: 'sai gon',
  brvt: 'ba ria vung tau',
};

/** Organisations: schools, offices, firms, authorities ("THPT Chu Văn An", "VPCC", "UBND"). */
export const ORGANISATION_ALIASES: Readonly<Record<string, string>> = {
  ...PLACE_ALIASES,
  tp: 'thanh pho',
  mn: 'mam non',
  thcs: 'trung hoc co so',
  thpt: 'trung hoc pho thong',
  dh: 'dai hoc',
  cd: 'cao dang',
  vpcc: 'van phong cong chung',
  vptpl: 'van phong thua phat lai',
  vpls: 'van phong luat su',
  cty: 'cong ty',
  tnhh: 'trach nhiem huu han',
  ubnd: 'uy ban nhan dan',
  hdnd: 'hoi dong nhan dan',
};

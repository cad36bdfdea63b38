-- ward_code alone (the reference's filter, without province_code): the (dataset, province_code,
-- ward_code) index cannot find a ward's rows without its province, so every row of the dataset was
-- read; this one finds them, in the list's order (name, id), and stops at the page.
CREATE INDEX IF NOT EXISTS directory_organisations_ward ON directory_organisations (dataset, ward_code, name, id);

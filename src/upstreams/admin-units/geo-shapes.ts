/** GeoJSON geometry of a unit: [lng, lat] positions, rings closed, holes after the outer ring. */
export type Position = [number, number];
export type PolygonCoords = Position[][];

export type Geometry =
  { type: 'Polygon'; coordinates: PolygonCoords } | { type: 'MultiPolygon'; coordinates: PolygonCoords[] };

/** [minLng, minLat, maxLng, maxLat], the GeoJSON bbox order. */
export type BBox = [number, number, number, number];

/** The parts of a geometry, so a multipolygon's islands each get their own (tighter) box. */
export function polygonsOf(g: Geometry): PolygonCoords[] {
  return g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
}

/** Bounding box of a polygon's outer ring (holes lie inside it). */
export function polygonBBox(poly: PolygonCoords): BBox {
  const box: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  for (const [lng, lat] of poly[0] ?? []) {
    if (lng < box[0]) box[0] = lng;
    if (lat < box[1]) box[1] = lat;
    if (lng > box[2]) box[2] = lng;
    if (lat > box[3]) box[3] = lat;
  }
  return box;
}

export function geometryBBox(g: Geometry): BBox {
  const box: BBox = [Infinity, Infinity, -Infinity, -Infinity];
  for (const b of polygonsOf(g).map(polygonBBox)) {
    box[0] = Math.min(box[0], b[0]);
    box[1] = Math.min(box[1], b[1]);
    box[2] = Math.max(box[2], b[2]);
    box[3] = Math.max(box[3], b[3]);
  }
  return box;
}

/** A geometry read back from the database: checked enough that indexing it cannot throw. */
export function isGeometry(v: unknown): v is Geometry {
  if (typeof v !== 'object' || v === null) return false;
  const g = v as { type?: unknown; coordinates?: unknown };
  return (g.type === 'Polygon' || g.type === 'MultiPolygon') && Array.isArray(g.coordinates);
}

import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import RBush from 'rbush';
import type { Queryable } from '../../db/db';
import type { LatLng } from '../../upstream-kit';
import { isGeometry, polygonBBox, polygonsOf } from './geo-shapes';
import type { PolygonCoords } from './geo-shapes';

interface Entry {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  code: string;
  polygon: { type: 'Polygon'; coordinates: PolygonCoords };
}

/**
 * Which units contain a point: an R-tree of polygon boxes narrows ~3,300 wards to the few whose box
 * holds the point, then an exact point-in-polygon test (holes respected) decides. Each part of a
 * multipolygon (islands) is its own entry, so boxes stay tight.
 */
export class BoundaryIndex {
  private readonly tree = new RBush<Entry>();
  /** Indexed polygon parts. */
  readonly size: number;

  constructor(units: Iterable<{ code: string; geometry: unknown }>) {
    const entries: Entry[] = [];
    for (const u of units) {
      if (!isGeometry(u.geometry)) continue;
      for (const coordinates of polygonsOf(u.geometry)) {
        const [minX, minY, maxX, maxY] = polygonBBox(coordinates);
        entries.push({ minX, minY, maxX, maxY, code: u.code, polygon: { type: 'Polygon', coordinates } });
      }
    }
    this.tree.load(entries);
    this.size = entries.length;
  }

  /** Codes of the units containing the point, sorted: none at sea, two on a shared border (or an overlap of simplified edges). */
  codesAt(p: LatLng): string[] {
    const hits = this.tree.search({ minX: p.lng, minY: p.lat, maxX: p.lng, maxY: p.lat });
    const codes = new Set<string>();
    for (const e of hits)
      if (!codes.has(e.code) && booleanPointInPolygon([p.lng, p.lat], e.polygon)) codes.add(e.code);
    return [...codes].sort();
  }
}

/** Both indexes, built from the database so they always match what detail responses return. */
export interface AdminBoundaries {
  provinces: BoundaryIndex;
  wards: BoundaryIndex;
}

export async function loadBoundaries(db: Queryable): Promise<AdminBoundaries> {
  const read = async (table: string): Promise<BoundaryIndex> => {
    // The text, parsed here: one JSON.parse per row, whatever the driver does with json columns.
    const r = await db.query<{ code: string; g: string | null }>(
      `SELECT code, geometry::text AS g FROM ${table} WHERE geometry IS NOT NULL`,
    );
    return new BoundaryIndex(
      r.rows.map((row) => ({ code: row.code, geometry: JSON.parse(row.g ?? 'null') as unknown })),
    );
  };
  const [provinces, wards] = await Promise.all([read('admin_provinces'), read('admin_wards')]);
  return { provinces, wards };
}

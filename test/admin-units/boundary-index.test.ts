import { BoundaryIndex } from '../../src/upstreams/admin-units/boundary-index';

// Two unit squares side by side; A has a hole, B is a multipolygon with an island far away.
const A = {
  type: 'Polygon',
  coordinates: [
    [
      [0, 0],
      [1, 0],
      [1, 1],
      [0, 1],
      [0, 0],
    ],
    [
      [0.4, 0.4],
      [0.6, 0.4],
      [0.6, 0.6],
      [0.4, 0.6],
      [0.4, 0.4],
    ],
  ],
};
const B = {
  type: 'MultiPolygon',
  coordinates: [
    [
      [
        [1, 0],
        [2, 0],
        [2, 1],
        [1, 1],
        [1, 0],
      ],
    ],
    [
      [
        [10, 10],
        [11, 10],
        [11, 11],
        [10, 11],
        [10, 10],
      ],
    ],
  ],
};

describe('boundary index', () => {
  const idx = new BoundaryIndex([
    { code: 'A', geometry: A },
    { code: 'B', geometry: B },
    { code: 'broken', geometry: { type: 'Point', coordinates: [0, 0] } },
  ]);

  it('indexes each polygon part and skips what is not a polygon', () => {
    expect(idx.size).toBe(3);
  });

  it('finds the unit containing a point (lat, lng order)', () => {
    expect(idx.codesAt({ lat: 0.1, lng: 0.1 })).toEqual(['A']);
    expect(idx.codesAt({ lat: 0.5, lng: 1.5 })).toEqual(['B']);
    expect(idx.codesAt({ lat: 10.5, lng: 10.5 })).toEqual(['B']);
  });

  it('respects holes and finds nothing outside', () => {
    expect(idx.codesAt({ lat: 0.5, lng: 0.5 })).toEqual([]);
    expect(idx.codesAt({ lat: 5, lng: 5 })).toEqual([]);
    // Inside A's box but outside the lng/lat swap: lat 0.1, lng 10.5 is nowhere.
    expect(idx.codesAt({ lat: 0.1, lng: 10.5 })).toEqual([]);
  });

  it('returns both units for a point on their shared border', () => {
    expect(idx.codesAt({ lat: 0.5, lng: 1 })).toEqual(['A', 'B']);
  });
});

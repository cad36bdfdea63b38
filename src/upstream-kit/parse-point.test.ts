import { readPoint } from './parse-point';

describe('reading a point parameter', () => {
  it('writes each coordinate in one plain spelling, never in exponent form', () => {
    const text = (raw: string) => {
      const p = readPoint(raw);
      return 'fault' in p ? p.fault : p.text;
    };
    expect(
      [
        '0.0000001,105.8',
        ' 021.50 , -0.000 ',
        '-0.00000000000000000001,180',
        '21.028499999999998,105.85420000000001',
      ].map(text),
    ).toEqual([
      '0.0000001,105.8',
      '21.5,0',
      '-0.00000000000000000001,180',
      '21.028499999999998,105.85420000000001',
    ]);
  });

  it('tells a malformed value from one out of range', () => {
    expect(
      [
        '1e-7,105',
        '21',
        '21,105,3',
        '91,105',
        '21,-180.5',
        '90.000000000000000001,105',
        '-90,180.00000000000000000001',
      ].map((raw) => readPoint(raw)),
    ).toEqual([
      { fault: 'shape' },
      { fault: 'shape' },
      { fault: 'shape' },
      { fault: 'range' },
      { fault: 'range' },
      { fault: 'range' },
      { fault: 'range' },
    ]);
  });

  it('takes the bounds themselves, and a value a double would round up to one', () => {
    expect(
      ['90.000,-180', '-90,180', '89.99999999999999999999,179.99999999999999999999'].map((raw) =>
        readPoint(raw),
      ),
    ).toEqual([
      { lat: 90, lng: -180, text: '90,-180' },
      { lat: -90, lng: 180, text: '-90,180' },
      { lat: 90, lng: 180, text: '89.99999999999999999999,179.99999999999999999999' },
    ]);
  });
});

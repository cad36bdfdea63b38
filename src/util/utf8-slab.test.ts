import { createUtf8Encoder } from './utf8-slab';

describe('utf8 encoder', () => {
  test('it gives the same bytes as Buffer.from for ASCII, Vietnamese and astral text', () => {
    const enc = createUtf8Encoder();
    for (const s of ['', '{"success":true}', 'Luật Đất đai số 31/2024/QH15', 'emoji 😀 and \u0000 nul']) {
      expect(enc.encode(s).equals(Buffer.from(s, 'utf8'))).toBe(true);
    }
  });

  test('bodies cut from one slab never overlap, also across a slab change', () => {
    const enc = createUtf8Encoder(256);
    const texts = Array.from({ length: 40 }, (_, i) => `văn bản ${i} `.repeat((i % 4) + 1));
    const bufs = texts.map((t) => enc.encode(t));
    bufs.forEach((b, i) => expect(b.toString('utf8')).toBe(texts[i]));
  });

  test('a string longer than a sixth of the slab gets a buffer of its own', () => {
    const enc = createUtf8Encoder(256);
    const long = 'đ'.repeat(100);
    const buf = enc.encode(long);
    expect(buf.toString('utf8')).toBe(long);
    expect(buf.length).toBe(200);
  });
});

import type { RequestListener } from 'node:http';
import request from 'supertest';

/** Every entry of GET /v1/datasets for this key, page after page (it is paged like any list). */
export async function everyDataset<T = { path: string }>(app: RequestListener, key: string): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; ; page++) {
    const r = await request(app).get(`/v1/datasets?page=${page}`).set('X-Api-Key', key);
    if (r.status !== 200) throw new Error(`GET /v1/datasets?page=${page}: ${r.status}`);
    all.push(...(r.body.data as T[]));
    if (!r.body.meta.has_more) return all;
  }
}

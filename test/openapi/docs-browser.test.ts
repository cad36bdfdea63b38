import { existsSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { startHarness } from '../support/gateway-harness';
import type { Harness } from '../support/gateway-harness';

// The reference page in a real browser: /docs from createApp on a local port, Swagger UI rendering
// the generated document, the legal-documents list operation expanded with its parameters.

const CHROMIUM = '/usr/bin/chromium';
const SHOTS = join(__dirname, '__screenshots__');

let h: Harness;
let server: Server;
let base: string;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    // Fail, never skip: a skipped browser test reads as a passing one in CI.
    throw new Error(
      `Chromium is not installed at ${CHROMIUM}: run scripts/ensure-chromium.sh (apt-get install -y chromium).`,
    );
  }
  h = await startHarness();
  server = createServer(h.gw.app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // launch() gives every run a fresh temporary profile (user-data-dir), removed on close.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await h?.close();
});

it('renders /docs: the legal-documents search with its parameters, all from this origin', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1600 }, locale: 'vi-VN' });
  const offOrigin: string[] = [];
  const errors: string[] = [];
  page.on('request', (req) => {
    if (!req.url().startsWith(base) && !req.url().startsWith('data:')) offOrigin.push(req.url());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });

  await page.goto(`${base}/docs`, { waitUntil: 'load' });
  await page.getByRole('heading', { name: /Lookup API — Tài liệu tham chiếu/ }).waitFor();
  // Swagger UI fetched and rendered the document: its info title and the version badge.
  await page.locator('.info .title').filter({ hasText: 'Lookup API' }).waitFor({ timeout: 20_000 });

  const op = page.locator('#operations-legal-documents-listLegalDocuments');
  await op.waitFor();
  await op.locator('.opblock-summary').first().click();
  const table = op.locator('table.parameters');
  await table.waitFor();
  for (const name of ['q', 'search_in', 'database', 'issued_from', 'page', 'per_page']) {
    await table.locator(`tr[data-param-name="${name}"]`).waitFor();
  }
  await op
    .getByText('x-require-one-of', { exact: false })
    .or(op.getByText('Bắt buộc ít nhất một'))
    .first()
    .waitFor();
  await op.locator('tr[data-param-name="database"]').getByText('vbqppl').first().waitFor();

  mkdirSync(SHOTS, { recursive: true });
  await op.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'docs.png'), fullPage: false });

  expect(offOrigin).toEqual([]);
  expect(errors).toEqual([]);
  await page.close();
}, 60_000);

import type { Browser } from 'playwright-core';
import { launchChromium } from '../../scripts/services/chromium';
import { startTestStack, type TestStack } from '../support/stack';

/** /docs renders the OpenAPI document in a real browser, every request staying on our own host. */
describe('the API reference page', () => {
  let stack: TestStack;
  let browser: Browser;
  beforeAll(async () => {
    stack = await startTestStack();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it('lists the operations from /openapi.json and loads nothing from another host', async () => {
    const page = await browser.newPage();
    const origins = new Set<string>();
    page.on('request', (r) => origins.add(new URL(r.url()).origin));
    await page.goto(`${stack.server.mainUrl}/docs`);
    await page
      .locator('.opblock-summary-path', { hasText: '/api/external/jobs/{jobId}/reserve' })
      .first()
      .waitFor({ timeout: 60_000 }); // Swagger UI renders slowly on a loaded machine
    expect(await page.locator('.opblock').count()).toBeGreaterThan(40);
    expect([...origins].filter((o) => o !== stack.server.mainUrl && o !== 'null')).toEqual([]);
    await page.close();
  });
});

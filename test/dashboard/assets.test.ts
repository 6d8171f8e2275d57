import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import request from 'supertest';

import { ASSETS_DIR, loadDashboardAssets, MANIFEST_FILE, type AssetManifest } from '../../src/dashboard/assets.js';
import { buildDashboardAssets } from '../../src/dashboard/build-assets.js';
import { buildTestApp } from '../helpers/build-test-app.js';

describe('the dashboard bundle', () => {
  let outDir: string;
  beforeAll(() => {
    outDir = mkdtempSync(join(tmpdir(), 'water-sandbox-assets-'));
  });
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('is built into content-hashed files with a manifest, then skipped while its inputs are unchanged', async () => {
    const first = await buildDashboardAssets({ outDir });
    expect(first.skipped).toBe(false);
    expect(first.manifest.script).toMatch(/^app\.[A-Z0-9]{8}\.js$/);
    expect(first.manifest.style).toMatch(/^app\.[A-Z0-9]{8}\.css$/);
    expect(Object.keys(first.manifest.fingerprint.inputs)).toEqual(
      expect.arrayContaining([
        'src/dashboard/client/main.ts',
        'src/dashboard/page-config.ts',
        'node_modules/uplot/dist/uPlot.esm.js',
      ]),
    );
    const script = readFileSync(join(outDir, first.manifest.script), 'utf8');
    expect(script).toContain(`sourceMappingURL=${first.manifest.script}.map`);

    expect((await buildDashboardAssets({ outDir })).skipped).toBe(true);

    // An input that no longer matches its recorded hash (as after an edit) means a rebuild.
    const manifest = JSON.parse(readFileSync(join(outDir, MANIFEST_FILE), 'utf8')) as AssetManifest;
    manifest.fingerprint.inputs['src/dashboard/client/main.ts'] = 'not the hash of main.ts';
    writeFileSync(join(outDir, MANIFEST_FILE), JSON.stringify(manifest));
    const rebuilt = await buildDashboardAssets({ outDir });
    expect(rebuilt.skipped).toBe(false);
    expect(rebuilt.manifest.script).toBe(first.manifest.script);
  });

  it('is found missing, with the reason, where nothing was built', () => {
    const empty = mkdtempSync(join(tmpdir(), 'water-sandbox-no-assets-'));
    try {
      expect(loadDashboardAssets(empty)).toEqual({ missing: expect.stringContaining(MANIFEST_FILE) });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('GET /dashboard/assets/{file}', () => {
  it('serves the built files with long-lived caching, and nothing else', async () => {
    const { app } = await buildTestApp();
    const assets = loadDashboardAssets(ASSETS_DIR);
    if ('missing' in assets) throw new Error(assets.missing);
    const script = await request(app).get(`/dashboard/assets/${assets.script}`).expect(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.headers['x-content-type-options']).toBe('nosniff');
    const style = await request(app).get(`/dashboard/assets/${assets.style}`).expect(200);
    expect(style.headers['content-type']).toBe('text/css; charset=utf-8');
    await request(app).get('/dashboard/assets/manifest.json').expect(404);
    await request(app).get('/dashboard/assets/..%2Fpackage.json').expect(404);
    await request(app).get('/dashboard/assets/app.00000000.js').expect(404);
  });

  it('answers the signed-in page with 503 and how to build it when the bundle is missing', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'water-sandbox-no-assets-'));
    try {
      const t = await buildTestApp();
      const { createApp } = await import('../../src/app.js');
      const app = createApp(Object.assign({}, t.deps, { dashboardAssetsDir: empty }));
      const agent = request.agent(app);
      const form = await agent.get('/').expect(200);
      const csrf = /name="csrf_token" value="([^"]+)"/.exec(form.text)![1]!;
      await agent
        .post('/dashboard/sign-in')
        .type('form')
        .send({ csrf_token: csrf, email: 'demo@example.com', password: 'demo-password' })
        .expect(303);
      const page = await agent.get('/').expect(503);
      expect(page.text).toContain('npm run build');
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

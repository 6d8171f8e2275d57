import request from 'supertest';

import { buildOpenApiDocument } from '../../src/openapi/index.js';
import { describeStartup } from '../../src/server.js';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import { bearer, DEMO_API_KEY } from '../helpers/demo.js';
import { startTestSandbox, stopAllSandboxes } from '../helpers/start-sandbox.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp({ env: { PUBLIC_URL: 'https://water.example.test' } });
});

/** GET `path` without credentials, answered 200 with a Content-Type that matches `type`. */
const served = (path: string, type: RegExp): request.Test =>
  request(t.app).get(path).expect(200).expect('Content-Type', type);

/** Every URL a page or script names that is not on this sandbox. */
const externalUrls = (text: string): string[] =>
  [...text.matchAll(/(?:src|href)\s*=\s*["']?(https?:)?\/\/[^"'\s>]+/gi)].map((m) => m[0]);

describe('GET /openapi.json', () => {
  it('answers the document of this sandbox, without credentials', async () => {
    const res = await served('/openapi.json', /application\/json/);
    expect(res.body).toEqual(
      buildOpenApiDocument({ publicUrl: 'https://water.example.test', version: res.body.info.version }),
    );
    expect(res.body.servers[0].url).toBe('https://water.example.test');
  });

  it('stays out of the request journal', async () => {
    await request(t.app).get('/openapi.json').set(bearer(DEMO_API_KEY)).expect(200);
    const journal = await request(t.app).get('/sandbox/requests').set(bearer(DEMO_API_KEY)).expect(200);
    expect(journal.body.requests.map((r: { path: string }) => r.path)).not.toContain('/openapi.json');
  });
});

describe('GET /docs', () => {
  it('answers the reference page without credentials, with a CSP that allows only this sandbox', async () => {
    const res = await served('/docs', /text\/html/);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/cdn|unpkg|jsdelivr/);
    expect(res.text).toContain('/docs/assets/swagger-ui-bundle.js');
  });

  it('answers the same page at /docs/, with a slash at the end, as people type it', async () => {
    const plain = await request(t.app).get('/docs').expect(200);
    const slashed = await served('/docs/', /text\/html/);
    expect(slashed.text).toBe(plain.text);
    expect(slashed.headers['content-security-policy']).toBe(plain.headers['content-security-policy']);
  });

  it('works offline: the page, its script and Swagger UI load nothing from another host', async () => {
    const page = await request(t.app).get('/docs').expect(200);
    expect(externalUrls(page.text)).toEqual([]);
    const scripts = [...page.text.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    const styles = [...page.text.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(['/docs/assets/swagger-ui-bundle.js', '/docs/init.js']);
    for (const path of [...scripts, ...styles]) {
      const res = await request(t.app).get(path).expect(200);
      expect([path, externalUrls(res.text)]).toEqual([path, []]);
    }
    const init = await served('/docs/init.js', /javascript/);
    expect(init.text).toContain("url: '/openapi.json'");
    expect(init.text).toContain('validatorUrl: null');
    const bundle = await request(t.app).get('/docs/assets/swagger-ui-bundle.js').expect(200);
    expect(bundle.text.length).toBeGreaterThan(100_000);
    // Its only default network use, the online validator badge, is turned off by validatorUrl: null.
    expect(bundle.text).toContain('validator.swagger.io');
  });

  it('serves only the files it needs', async () => {
    await request(t.app).get('/docs/assets/package.json').expect(404);
    await request(t.app).get('/docs/assets/..%2Fpackage.json').expect(404);
  });
});

describe('the start-up message', () => {
  afterAll(() => stopAllSandboxes());

  it('names a /docs and an /openapi.json that the running sandbox serves', async () => {
    const sandbox = await startTestSandbox();
    const message = describeStartup(sandbox.report);
    expect(message).toContain(`${sandbox.report.publicUrl}/docs`);
    expect(message).toContain(`${sandbox.report.publicUrl}/openapi.json`);
    const onServer = (url: string): string => url.replace(sandbox.report.publicUrl, sandbox.url);
    const docs = await fetch(onServer(sandbox.report.docsUrl));
    expect([docs.status, docs.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
    const document = (await (await fetch(onServer(`${sandbox.report.publicUrl}/openapi.json`))).json()) as {
      servers: { url: string }[];
    };
    expect(document.servers[0]!.url).toBe(sandbox.report.publicUrl);
  });
});

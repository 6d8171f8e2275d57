import type { Router } from 'express';

import { notFound } from '../core/errors.js';
import { operationRouter } from '../http/operation.js';
import { DOCS_ASSETS_DIR } from './docs-assets.js';
import { DOCS_ASSETS, docsContentSecurityPolicy, docsInitScript, renderDocsPage } from './docs-page.js';
import { buildOpenApiDocument } from './document.js';
import { docsOp, openApiOp } from './registry.js';

export interface OpenApiDeps {
  /** Read at each request: server.ts sets the public URL once the port is known. */
  urls: { readonly publicUrl: string };
  version: string;
}

/** The document's text: built once per public URL (in practice once per start), since the OAuth URLs and the server depend on it. */
export function openApiJson(deps: OpenApiDeps): () => string {
  let built: { publicUrl: string; json: string } | null = null;
  return () => {
    const { publicUrl } = deps.urls;
    if (built?.publicUrl !== publicUrl)
      built = { publicUrl, json: JSON.stringify(buildOpenApiDocument({ publicUrl, version: deps.version })) };
    return built.json;
  };
}

/** GET /openapi.json and GET /docs (with its assets): open, no credentials, not journaled. */
export function openApiRouter(deps: OpenApiDeps): Router {
  const api = operationRouter('');
  const documentJson = openApiJson(deps);

  api.handle(openApiOp, (_input, _req, res) => {
    res.type('application/json').set('Cache-Control', 'no-cache').send(documentJson());
  });

  api.handle(docsOp, (_input, _req, res) => {
    res
      .type('html')
      .set({
        'Content-Security-Policy': docsContentSecurityPolicy(deps.urls.publicUrl),
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
      })
      .send(renderDocsPage());
  });

  const router = api.done();
  // The page's script and Swagger UI's files: not operations of the API, so not in the document.
  router.get('/docs/init.js', (_req, res) => {
    res.type('text/javascript').send(docsInitScript(deps.urls.publicUrl));
  });
  router.get('/docs/assets/:file', (req, res, next) => {
    const file = DOCS_ASSETS.find((name) => name === req.params.file);
    if (!file) throw notFound(`No file ${JSON.stringify(req.params.file)} in /docs/assets`);
    res.set('Cache-Control', 'public, max-age=3600');
    if (file === 'oauth2-redirect.html') res.set('Content-Security-Policy', "default-src 'none'; script-src 'self'");
    res.sendFile(file, { root: DOCS_ASSETS_DIR }, (error) => {
      if (error && !res.headersSent)
        next(
          notFound(`The API reference's files are not built (${DOCS_ASSETS_DIR} has no ${file}): run npm run build`),
        );
    });
  });
  return router;
}

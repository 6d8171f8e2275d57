import { html } from '../http/html.js';

/** The files of swagger-ui-dist that /docs serves, under /docs/assets/. */
export const DOCS_ASSETS = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'oauth2-redirect.html',
  'oauth2-redirect.js',
  'favicon-32x32.png',
] as const;

/**
 * Only this sandbox's own files run and load: no CDN, so /docs works offline. Swagger UI sets
 * element styles from script, which needs style-src 'unsafe-inline'; scripts stay 'self'.
 */
export const docsContentSecurityPolicy = (publicUrl: string): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${new URL(publicUrl).origin}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');

/** The page: Swagger UI from /docs/assets, started by /docs/init.js (no inline script). */
export function renderDocsPage(): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Water sandbox API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`.toString();
}

/** Starts Swagger UI on /openapi.json; validatorUrl null keeps it from sending the document to an online validator. */
export function docsInitScript(publicUrl: string): string {
  const redirect = `${publicUrl.replace(/\/+$/, '')}/docs/assets/oauth2-redirect.html`;
  return `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    oauth2RedirectUrl: ${JSON.stringify(redirect)},
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;
}

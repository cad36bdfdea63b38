/**
 * The /docs page: Swagger UI from the swagger-ui-dist package (served from node_modules, no CDN)
 * around our document. Kept as strings so the build (tsc) ships them without copying assets.
 * The start script is a file, not inline, so the page works under a CSP without 'unsafe-inline'.
 */
export const DOCS_HTML = `<!doctype html>
<html lang="vi">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Lookup API — Tài liệu tham chiếu / API reference</title>
  <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
  <link rel="stylesheet" href="/docs/swagger-ui.css">
  <style>
    body { margin: 0; background: #fafafa; }
    .lookup-header { background: #1b3a5c; color: #fff; padding: 16px 24px; font-family: sans-serif; }
    .lookup-header h1 { margin: 0 0 4px; font-size: 22px; }
    .lookup-header p { margin: 0; font-size: 14px; opacity: .9; }
    .lookup-header a { color: #cfe3ff; }
  </style>
</head>
<body>
  <header class="lookup-header">
    <h1>Lookup API — Tài liệu tham chiếu <span lang="en">/ API reference</span></h1>
    <p>Tra cứu văn bản pháp luật và dữ liệu công của Việt Nam. Gửi API key qua header <code>Authorization: Bearer</code> hoặc <code>X-Api-Key</code>.
      <span lang="en">Vietnamese legal and public datasets. Send the key in the <code>Authorization: Bearer</code> or <code>X-Api-Key</code> header.</span>
      <a href="/v1/openapi.json">openapi.json</a></p>
  </header>
  <div id="swagger-ui"></div>
  <script src="/docs/swagger-ui-bundle.js" charset="UTF-8"></script>
  <script src="/docs/init.js" charset="UTF-8"></script>
</body>
</html>
`;

export const DOCS_INIT_JS = `'use strict';
window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    layout: 'BaseLayout',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    filter: true,
    displayRequestDuration: true,
    // The validator badge would call validator.swagger.io: nothing leaves this origin.
    validatorUrl: null,
    // No "Try it out": keys belong on servers, never in browser script (API reference,
    // Authentication); the page is a reference, curl examples are in docs/openapi.md.
    supportedSubmitMethods: [],
  });
});
`;

/** Only our own scripts and styles, Swagger UI's inline styles, and calls to this origin. */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Controller, Get, Header, Param, Res } from '@nestjs/common';
import { PublicRoute } from '@lib/identity';
import { GatewayErrors } from '../gateway.errors';
import type { Response } from 'express';

/** Committed, and regenerated from the code by `npm run openapi` (a unit test fails when it drifts). */
const DOCUMENT_FILE = join(__dirname, 'openapi.json');

/** The Swagger UI build that @nestjs/swagger depends on, served from disk: no CDN. */
const UI_DIR = dirname(
  require.resolve('swagger-ui-dist/package.json', {
    paths: [dirname(require.resolve('@nestjs/swagger/package.json'))],
  }),
);
const UI_FILES = new Set([
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
]);

// No inline script, so the gateway's Content-Security-Policy (script-src 'self') holds for the page.
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>guildkeeper API</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css" />
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js"></script>
    <script src="/docs/swagger-ui-init.js"></script>
  </body>
</html>
`;

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({
  url: '/docs/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

/** The public API's OpenAPI document and a Swagger UI over it; public, like the API's login. */
@Controller('docs')
@PublicRoute()
export class DocsController {
  // Read on first use: scripts/openapi builds the document from every controller, this one included.
  private document?: string;

  @Get()
  @Header('Content-Type', 'text/html; charset=utf-8')
  page(): string {
    return PAGE;
  }

  @Get('openapi.json')
  @Header('Content-Type', 'application/json; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  openApiDocument(): string {
    this.document ??= readFileSync(DOCUMENT_FILE, 'utf8');
    return this.document;
  }

  @Get('swagger-ui-init.js')
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  initScript(): string {
    return INIT_SCRIPT;
  }

  @Get(':file')
  asset(@Param('file') file: string, @Res() res: Response): void {
    if (!UI_FILES.has(file)) throw GatewayErrors.documentNotFound();
    res.sendFile(file, { root: UI_DIR, maxAge: '1h' });
  }
}

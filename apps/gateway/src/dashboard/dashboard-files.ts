import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NextFunction, Request, Response } from 'express';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Paths that belong to someone else on the gateway's origin: the API, login, the docs, health and
 * metrics, the forwarded subscription alias, and what standalone mode routes to the webhook intake
 * and the sandbox. Anything else is the dashboard's: a file of its build, or one of its pages.
 */
export const RESERVED_PREFIXES = [
  '/api',
  '/auth',
  '/docs',
  '/health',
  '/metrics',
  '/subscriptions',
  '/webhooks',
  '/admin',
  '/sandbox',
  '/internal',
  '/interactions',
] as const;

/** The build's hashed files: a new build has new names, so a browser may keep these forever. */
export const DASHBOARD_ASSETS = '/assets';
const ONE_YEAR_MS = 365 * 86_400_000;
/** Other files of the build (the icon): their names do not change with their content. */
const ONE_HOUR_MS = 3_600_000;

export function isReserved(pathname: string): boolean {
  return RESERVED_PREFIXES.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`));
}

/**
 * Serves the dashboard's static build (`DASHBOARD_DIST_DIR`) on the gateway's origin, so the
 * browser's requests to the API are same-origin and carry the `sid` cookie. Hashed assets are cached
 * for a year (`immutable`); the HTML shell is never cached, so a new build is picked up at the next
 * load; every other GET from a browser (it asks for `text/html`) that is not reserved and names
 * no file (a page of the app: `/guilds/...`) gets the shell, and the app's router shows it. Without a build (no `index.html`), nothing is
 * served and the gateway answers the API alone.
 */
export function serveDashboard(app: NestExpressApplication, distDir: string): boolean {
  const shellFile = path.join(distDir, 'index.html');
  if (!existsSync(shellFile)) return false;
  app.useStaticAssets(path.join(distDir, 'assets'), {
    prefix: DASHBOARD_ASSETS,
    index: false,
    immutable: true,
    maxAge: ONE_YEAR_MS,
    fallthrough: true,
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isReserved(req.path)) return next();
    if (req.path === DASHBOARD_ASSETS || req.path.startsWith(`${DASHBOARD_ASSETS}/`)) return next();
    const lastSegment = req.path.slice(req.path.lastIndexOf('/') + 1);
    // A name with an extension is a file of the build (the icon, at the top), not a page.
    if (lastSegment.includes('.') && lastSegment !== 'index.html') {
      if (req.path !== `/${lastSegment}`) return next();
      res.sendFile(lastSegment, { root: distDir, maxAge: ONE_HOUR_MS, dotfiles: 'deny' }, (error?: Error) => {
        if (error && !res.headersSent) next();
      });
      return;
    }
    // Pages are for browsers, which ask for HTML; any other client of an unknown path gets the
    // API's 404 problem, not a page. `/` is the dashboard whoever asks.
    if (req.path !== '/' && !/\btext\/html\b/.test(req.headers.accept ?? '')) return next();
    readFile(shellFile, 'utf8').then(
      (shell) => {
        res.setHeader('Cache-Control', 'no-store');
        res.type('html').send(shell);
      },
      () => next(),
    );
  });
  return true;
}

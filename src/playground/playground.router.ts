import express, { Router } from 'express';
import type { PlaygroundSettings } from './playground-settings';

export const PLAYGROUND_PATH = '/playground';

/**
 * The page is same-origin only: scripts, styles and connections (REST and the Socket.IO websocket) to
 * this service, nothing inline, never framed.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export interface PlaygroundRouterOptions {
  assetsDir: string;
  authMode: 'jwt' | 'none';
  /** The bundles' source maps (the client's source): served in development, not in production. */
  serveSourceMaps: boolean;
}

/** The static files of the built page, its settings, and the security headers they are served with. */
export function playgroundRouter(options: PlaygroundRouterOptions): Router {
  const router = Router();
  router.use((req, res, next) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    // Falls through to the service's JSON 404, as any file the build did not make.
    if (!options.serveSourceMaps && req.path.endsWith('.map')) return next('router');
    next();
  });
  router.get('/config.json', (_req, res) => {
    const settings: PlaygroundSettings = { auth: options.authMode };
    res.setHeader('Cache-Control', 'no-cache');
    res.json(settings);
  });
  // Bundles keep their names across builds: revalidate each time (ETag) rather than cache stale code.
  router.use(
    express.static(options.assetsDir, {
      index: 'index.html',
      redirect: true,
      fallthrough: true,
      cacheControl: true,
      maxAge: 0,
    }),
  );
  return router;
}

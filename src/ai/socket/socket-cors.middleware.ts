import type { IncomingMessage, ServerResponse } from 'node:http';

export type EngineMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/**
 * CORS for the Socket.IO endpoint (SOCKET_CORS_ORIGINS), as an engine.io middleware: a browser page of
 * an allowed origin may use the polling transport (XHR) and send credentials; preflight requests are
 * answered here. The allowed origin is echoed (never `*`), as credentials require. Other origins get
 * no CORS headers, so the browser refuses the answer; non-browser clients are unaffected.
 */
export function socketCorsMiddleware(origins: readonly string[]): EngineMiddleware {
  const anyOrigin = origins.includes('*');
  const allowed = new Set(origins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (!origin || !(anyOrigin || allowed.has(origin))) {
      next();
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Allow-Credentials', 'true');
    res.setHeader('Vary', 'Origin');
    if (req.method !== 'OPTIONS') {
      next();
      return;
    }
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    const requested = req.headers['access-control-request-headers'];
    if (requested) res.setHeader('Access-Control-Allow-Headers', requested);
    res.setHeader('Access-Control-Max-Age', '600');
    res.writeHead(204);
    res.end();
  };
}

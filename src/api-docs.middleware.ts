import type { NextFunction, Request, Response } from 'express';

/**
 * Swagger UI (/docs) loads its scripts, styles and fonts from this service only; its own styles are
 * inline (the page @nestjs/swagger renders), hence `'unsafe-inline'` for styles alone. "Try it out"
 * calls this service (connect-src 'self'). Never framed: a page of another site could otherwise frame
 * it and have a visitor click "Execute" (clickjacking).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The security headers of /docs and its assets (app.use('/docs', apiDocsHeaders) before SwaggerModule.setup). */
export function apiDocsHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  next();
}

import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors/app-error';
import { bodyReadErrorBody, isClientGoneError } from '../errors/body-parser-error.mapper';
import { ErrorBody } from '../errors/error-body';
import { toErrorBody } from '../errors/to-error-body';
import { Logger } from '../observability/logger';
import { findJsonShapeProblem } from './json-shape.checker';

/** Media types read as JSON; any other body is refused with 415 rather than read as no body at all. */
const JSON_TYPES = ['application/json', 'application/*+json'];

const logger = new Logger('http');

/** Requests already read by a parser (the graph routes' larger one runs before the general one). */
const parsedRequests = new WeakSet<Request>();

/**
 * The request body parser of every route: JSON only, up to `limit` bytes, in UTF-8, and of a sane
 * shape (nesting at most JSON_MAX_DEPTH levels, no `__proto__` / `constructor` keys) before any
 * route, pipe or DTO sees it. Every failure answers in the error shape with a 4xx:
 * 400 malformed, undecodable or badly shaped, 413 too large, 415 not JSON or an unsupported charset
 * or Content-Encoding. A client that closes the connection mid-body gets
 * nothing (it is gone) and leaves a debug line, not an error log.
 */
export function jsonBodyParser(limit: number): RequestHandler {
  const parse = express.json({ limit, type: JSON_TYPES });
  return (req: Request, res: Response, next: NextFunction) => {
    if (parsedRequests.has(req)) return next();
    parsedRequests.add(req);
    if (carriesBody(req) && !req.is(JSON_TYPES)) {
      const contentType = req.headers['content-type'] ?? '(none)';
      return answer(
        res,
        toErrorBody(
          new AppError('unsupported_media_type', `Content-Type ${contentType} is not supported: send application/json`),
        ),
      );
    }
    parse(req, res, (error?: unknown) => {
      if (error) {
        if (isClientGoneError(error)) {
          logger.debug('request_body_aborted', { method: req.method, path: req.path });
          return answer(res, bodyReadErrorBody(error) as ErrorBody);
        }
        return answer(res, bodyReadErrorBody(error) ?? toErrorBody(error));
      }
      const problem = req.body === undefined ? null : findJsonShapeProblem(req.body);
      if (problem)
        return answer(
          res,
          toErrorBody(
            AppError.badRequest(`Invalid request: ${problem.field}: ${problem.problems.join(', ')}`, [problem]),
          ),
        );
      next();
    });
  };
}

/** A body with content: chunked, or a Content-Length above 0 (an empty POST needs no Content-Type). */
function carriesBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function answer(res: Response, body: ErrorBody): void {
  // The client may be gone (an aborted body): there is nobody to answer.
  if (res.headersSent || res.destroyed) return;
  res.status(body.statusCode).json(body);
}

import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors/app-error';
import { bodyReadErrorBody, isClientGoneError } from '../errors/body-parser-error.mapper';
import { ErrorBody } from '../errors/error-body';
import { FieldProblem } from '../errors/validation-problems';
import { toErrorBody } from '../errors/to-error-body';
import { Logger } from '../observability/logger';
import { ParsedJsonBody } from './json-body.text-parser';
import { findJsonShapeProblem } from './json-shape.checker';

/** Media types read as JSON; any other body is refused with 415 rather than read as no body at all. */
const JSON_TYPES = ['application/json', 'application/*+json'];

const logger = new Logger('http');

/** Requests already read by a parser (the graph routes' larger one runs before the general one). */
const parsedRequests = new WeakSet<Request>();

/** Parses a body's bytes elsewhere than on the event loop (parseJsonBodyBytes's result); the graph module's worker. */
export interface OffThreadJsonParser {
  parse(bytes: Uint8Array): Promise<ParsedJsonBody>;
}

/** Bodies this large or larger (or of unknown length) go to the off-thread parser: JSON.parse of 1 MB is ~5-10 ms. */
export const OFF_THREAD_MIN_BODY_BYTES = 1024 * 1024;

/** A JSON Content-Type in UTF-8 or without a charset, and no other parameter. */
const PLAIN_UTF8_JSON_TYPE = /^application\/(?:[\w.-]+\+)?json\s*(?:;\s*charset\s*=\s*(?:utf-8|"utf-8")\s*)?$/i;

/**
 * The request body parser of every route: JSON only, up to `limit` bytes, in UTF-8, and of a sane
 * shape (nesting at most JSON_MAX_DEPTH levels, no `__proto__` / `constructor` keys) before any
 * route, pipe or DTO sees it. Every failure answers in the error shape with a 4xx:
 * 400 malformed, undecodable or badly shaped, 413 too large, 415 not JSON or an unsupported charset
 * or Content-Encoding. A client that closes the connection mid-body gets
 * nothing (it is gone) and leaves a debug line, not an error log.
 *
 * With `offThread`, a UTF-8 body of at least OFF_THREAD_MIN_BODY_BYTES (or of unknown length, or
 * compressed) is read as bytes and parsed by it, with the same checks and the same answers: a 20 MB
 * graph import no longer holds the event loop for the quarter of a second of its JSON.parse.
 */
export function jsonBodyParser(limit: number, offThread?: OffThreadJsonParser): RequestHandler {
  const parse = express.json({ limit, type: JSON_TYPES });
  const readBytes = express.raw({ limit, type: JSON_TYPES });
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
    const refused = (error: unknown) => {
      if (isClientGoneError(error)) {
        logger.debug('request_body_aborted', { method: req.method, path: req.path });
        return answer(res, bodyReadErrorBody(error) as ErrorBody);
      }
      return answer(res, bodyReadErrorBody(error) ?? toErrorBody(error));
    };
    if (offThread && carriesBody(req) && isLarge(req) && isUtf8(req)) {
      return readBytes(req, res, (error?: unknown) => {
        if (error) return refused(error);
        const bytes = req.body as Buffer;
        req.body = undefined;
        offThread.parse(bytes).then(
          (parsed) => {
            if ('malformed' in parsed) return answer(res, MALFORMED);
            if ('problem' in parsed) return answer(res, shapeRefusal(parsed.problem));
            req.body = parsed.value;
            next();
          },
          (failure: unknown) => refused(failure),
        );
      });
    }
    parse(req, res, (error?: unknown) => {
      if (error) return refused(error);
      const problem = req.body === undefined ? null : findJsonShapeProblem(req.body);
      if (problem) return answer(res, shapeRefusal(problem));
      next();
    });
  };
}

/** What body-parser answers for a body that is not JSON (bodyReadErrorBody of its `entity.parse.failed`). */
const MALFORMED = bodyReadErrorBody({ type: 'entity.parse.failed', status: 400 }) as ErrorBody;

function shapeRefusal(problem: FieldProblem): ErrorBody {
  return toErrorBody(
    AppError.badRequest(`Invalid request: ${problem.field}: ${problem.problems.join(', ')}`, [problem]),
  );
}

/** A Content-Length of at least OFF_THREAD_MIN_BODY_BYTES, none (chunked), or a compressed body. */
function isLarge(req: Request): boolean {
  const length = req.headers['content-length'];
  if (length === undefined) return true;
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return true;
  return Number(length) >= OFF_THREAD_MIN_BODY_BYTES;
}

/** UTF-8 or no charset, nothing else in the header: other charsets, their refusals and odd headers stay with body-parser. */
function isUtf8(req: Request): boolean {
  return PLAIN_UTF8_JSON_TYPE.test(req.headers['content-type'] ?? '');
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

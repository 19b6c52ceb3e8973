import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { AppError } from '../../errors/app-error';
import { validationExceptionFactory } from '../../errors/validation-exception.factory';
import { findJsonShapeProblem } from '../../validation/json-shape.checker';
import { isMessageId } from './dto/message-id.rule';
import { SOCKET_PAYLOAD_CHECKS } from './socket-payload.schemas';

/**
 * Validates a socket message against its DTO class with the rules of the HTTP ValidationPipe
 * (whitelist + forbidNonWhitelisted: unknown keys are rejected, never ignored; no implicit type
 * conversion), after the shape check of REST bodies (nesting depth, `__proto__` / `constructor` keys:
 *). Throws AppError bad_request naming every bad or unknown field. `ai:chat` and
 * `ai:resume` are first checked by a compiled schema; only a payload it refuses is validated reflectively.
 */
export function validateSocketPayload<T extends object>(dtoClass: ClassConstructor<T>, payload: unknown): T {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
    throw AppError.badRequest('Invalid message: the payload must be a JSON object');
  }
  // Before class-transformer, whose recursion a deep payload overflows and which drops these keys silently.
  const problem = findJsonShapeProblem(payload);
  if (problem)
    throw AppError.badRequest(`Invalid message: ${problem.field}: ${problem.problems.join(', ')}`, [problem]);
  // A payload the compiled check accepts is valid for the DTO too (socket-payload.schemas.ts): no reflection.
  if (SOCKET_PAYLOAD_CHECKS.get(dtoClass)?.(payload)) return Object.assign(new dtoClass(), payload);
  const instance = plainToInstance(dtoClass, payload);
  const errors = validateSync(instance, { whitelist: true, forbidNonWhitelisted: true });
  if (errors.length > 0) throw validationExceptionFactory(errors);
  return instance;
}

/** The `_id` of a message, when it is a valid one (to attribute an error to it), else null. */
export function messageIdOf(payload: unknown): number | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const id = (payload as { _id?: unknown })._id;
  return isMessageId(id) ? id : null;
}

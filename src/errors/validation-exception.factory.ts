import { ValidationError } from 'class-validator';
import { AppError } from './app-error';
import { describeFieldProblems, toFieldProblems } from './validation-problems';

/** Used by the global ValidationPipe: a 400 bad_request naming every bad or unknown field. */
export function validationExceptionFactory(errors: ValidationError[]): AppError {
  const problems = toFieldProblems(errors);
  return AppError.badRequest(`Invalid request: ${describeFieldProblems(problems)}`, problems);
}

import { ValidationError } from 'class-validator';

export interface FieldProblem {
  field: string;
  problems: string[];
}

/** Flattens class-validator errors (nested DTOs included) into one entry per field path. */
export function toFieldProblems(errors: ValidationError[], parentPath = ''): FieldProblem[] {
  const result: FieldProblem[] = [];
  for (const error of errors) {
    const field = parentPath ? `${parentPath}.${error.property}` : error.property;
    if (error.constraints) result.push({ field, problems: Object.values(error.constraints) });
    if (error.children?.length) result.push(...toFieldProblems(error.children, field));
  }
  return result;
}

/** "graphKey: graphKey must be a string; extra: property extra should not exist" */
export function describeFieldProblems(problems: FieldProblem[]): string {
  return problems.map((problem) => `${problem.field}: ${problem.problems.join(', ')}`).join('; ');
}

import type { ErrorObject } from 'ajv';

export interface SchemaViolation {
  /** Where: "" for the arguments themselves, else e.g. "payload.handles.R.point[0].type". */
  path: string;
  message: string;
}

/**
 * From ajv's errors to the messages the model reads (JsonSchemaValidator). ajv reports every
 * failed keyword; the model is told less, in the value's order:
 *  - a wrong type, then a wrong const, then a value outside the enum says all there is to say about
 *    that value under that schema: what ajv found beside or below it there is dropped;
 *  - a failed anyOf / oneOf becomes one line and the problems of its closest branch (a branch whose
 *    const discriminator failed is never the closest; then the fewest problems; then the first);
 *  - problems are ordered as the value is read: a value's own problems, its missing required
 *    properties, then its properties (or items) in their order, then its alternatives.
 */
export function wordSchemaErrors(errors: ErrorObject[], value: unknown): SchemaViolation[] {
  return wordErrors(withoutShadowed(errors), value).flatMap((problem) => problem.violations);
}

/** Problems at one place of the value, with where they sort. */
interface WordedProblem {
  violations: SchemaViolation[];
  order: number[];
  /** A const discriminator failed here: the branch holding it is far from the value. */
  discriminatorFailed: boolean;
}

/** Decides the value's type, shape or discriminator: once it fails, nothing else at its schema node is reported. */
const DECISIVE = ['type', 'const', 'enum'];
/** Order of a value's own problems, as the model reads them. */
const OWN_PROBLEM_RANK = [
  ...DECISIVE,
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
];
const SELF = -2;
const REQUIRED = -1;
const ALTERNATIVES = Number.POSITIVE_INFINITY;

function withoutShadowed(errors: ErrorObject[]): ErrorObject[] {
  const decisive = errors.filter((error) => DECISIVE.includes(error.keyword));
  return errors.filter((error) => !decisive.some((decider) => decider !== error && shadows(decider, error)));
}

function shadows(decider: ErrorObject, error: ErrorObject): boolean {
  const node = decider.schemaPath.slice(0, decider.schemaPath.lastIndexOf('/'));
  if (!under(error, decider, node)) return false;
  const rival = error.schemaPath === `${node}/${error.keyword}` && DECISIVE.includes(error.keyword);
  return !rival || DECISIVE.indexOf(decider.keyword) < DECISIVE.indexOf(error.keyword);
}

function isAlternatives(error: ErrorObject): boolean {
  return error.keyword === 'anyOf' || error.keyword === 'oneOf';
}

/** The schema node of `ancestor` was applied to this error's value or one of its parents (items share their schema path). */
function under(error: ErrorObject, ancestor: ErrorObject, schemaNode: string): boolean {
  const sameValue =
    error.instancePath === ancestor.instancePath || error.instancePath.startsWith(`${ancestor.instancePath}/`);
  return sameValue && error.schemaPath.startsWith(`${schemaNode}/`);
}

function inBranchOf(error: ErrorObject, alternatives: ErrorObject): boolean {
  return under(error, alternatives, alternatives.schemaPath);
}

function wordErrors(errors: ErrorObject[], root: unknown): WordedProblem[] {
  const outermost = errors.filter(
    (error) =>
      isAlternatives(error) &&
      !errors.some((other) => other !== error && isAlternatives(other) && inBranchOf(error, other)),
  );
  const problems: WordedProblem[] = [];
  for (const error of errors) {
    if (outermost.includes(error))
      problems.push(
        wordAlternatives(
          error,
          errors.filter((other) => inBranchOf(other, error)),
          root,
        ),
      );
    else if (!outermost.some((alternatives) => inBranchOf(error, alternatives))) problems.push(wordError(error, root));
  }
  return problems.sort((a, b) => compareOrders(a.order, b.order));
}

function wordAlternatives(error: ErrorObject, branchErrors: ErrorObject[], root: unknown): WordedProblem {
  const { path, order } = locate(error.instancePath, root);
  const passing = (error.params as { passingSchemas?: number[] | null }).passingSchemas;
  const at = [...order, ALTERNATIVES, error.keyword === 'anyOf' ? 0 : 1];
  if (passing) {
    return {
      violations: [{ path, message: `matches ${passing.length} of the allowed shapes; it must match exactly one` }],
      order: at,
      discriminatorFailed: false,
    };
  }
  const branches = error.schema as unknown[];
  const distance = (problems: WordedProblem[]) =>
    (problems.some((problem) => problem.discriminatorFailed) ? 1_000 : 0) +
    problems.reduce((sum, problem) => sum + problem.violations.length, 0);
  const closest = branches
    .map((_, index) =>
      wordErrors(
        branchErrors.filter((branchError) => under(branchError, error, `${error.schemaPath}/${index}`)),
        root,
      ),
    )
    .reduce((best, current) => (distance(current) < distance(best) ? current : best));
  return {
    violations: [
      { path, message: `does not match any of the ${branches.length} allowed shapes; closest problems follow` },
      ...closest.flatMap((problem) => problem.violations),
    ],
    order: at,
    discriminatorFailed: closest.some((problem) => problem.discriminatorFailed),
  };
}

function wordError(error: ErrorObject, root: unknown): WordedProblem {
  const { path, order, value } = locate(error.instancePath, root);
  const params = error.params as Record<string, unknown>;
  const problem = (
    message: string,
    at: number[] = [SELF, OWN_PROBLEM_RANK.indexOf(error.keyword)],
    where = path,
  ): WordedProblem => ({
    violations: [{ path: where, message }],
    order: [...order, ...at],
    discriminatorFailed: error.keyword === 'const',
  });
  const limit = params.limit as number;
  switch (error.keyword) {
    case 'type': {
      const types = (Array.isArray(error.schema) ? error.schema : [error.schema]) as string[];
      return problem(`must be ${types.map(article).join(' or ')}, got ${describeValue(error.data)}`);
    }
    case 'const':
      return problem(`must be ${JSON.stringify(error.schema)}`);
    case 'enum':
      return problem(
        `must be one of ${(error.schema as unknown[]).map((allowed) => JSON.stringify(allowed)).join(', ')}, got ${JSON.stringify(error.data)}`,
      );
    case 'minLength':
      return problem(limit === 1 ? 'must not be empty' : `must have at least ${limit} characters`);
    case 'maxLength':
      return problem(`must have at most ${limit} characters`);
    case 'pattern':
      return problem(`must match the pattern ${String(params.pattern)}`);
    case 'minimum':
      return problem(`must be >= ${limit}`);
    case 'maximum':
      return problem(`must be <= ${limit}`);
    case 'exclusiveMinimum':
      return problem(`must be > ${limit}`);
    case 'exclusiveMaximum':
      return problem(`must be < ${limit}`);
    case 'minItems':
      return problem(`must have at least ${limit} item(s)`);
    case 'maxItems':
      return problem(`must have at most ${limit} item(s)`);
    case 'required': {
      const name = String(params.missingProperty);
      return problem('is required', [REQUIRED, (error.schema as string[]).indexOf(name)], join(path, name));
    }
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const known = Object.keys((error.parentSchema as { properties?: object }).properties ?? {});
      const allowed = known.length > 0 ? ` (allowed: ${known.join(', ')})` : ' (no properties allowed)';
      return problem(
        `is not an allowed property${allowed}`,
        [Object.keys(value as object).indexOf(name), SELF, 0],
        join(path, name),
      );
    }
    default:
      return problem(error.message ?? `fails ${error.keyword}`);
  }
}

/** The value at an ajv instancePath (JSON Pointer), its path as the model reads it, and its sort position (each step's index in its parent). */
function locate(pointer: string, root: unknown): { path: string; order: number[]; value: unknown } {
  let value = root;
  let path = '';
  const order: number[] = [];
  for (const escaped of pointer === '' ? [] : pointer.slice(1).split('/')) {
    const step = escaped.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(value)) {
      order.push(Number(step));
      path = `${path}[${step}]`;
      value = value[Number(step)];
    } else {
      const parent = value as Record<string, unknown>;
      order.push(Object.keys(parent).indexOf(step));
      path = join(path, step);
      value = parent[step];
    }
  }
  return { path, order, value };
}

function compareOrders(a: number[], b: number[]): number {
  for (let index = 0; index < Math.min(a.length, b.length); index += 1) {
    if (a[index] !== b[index]) return a[index] < b[index] ? -1 : 1;
  }
  return a.length - b.length;
}

function article(type: string): string {
  return type === 'null' ? 'null' : `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' && !Number.isInteger(value)) return `the number ${value}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function join(path: string, name: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) ? (path ? `${path}.${name}` : name) : `${path}[${JSON.stringify(name)}]`;
}

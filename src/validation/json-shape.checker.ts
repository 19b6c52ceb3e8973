import { FieldProblem } from '../errors/validation-problems';

/**
 * Deepest nesting of objects and arrays accepted in a request body or socket payload. The real
 * workflows of the shared pool nest 12 levels at most (node `data` included); 64 leaves room and
 * stops bodies built to overflow the stack of recursive code downstream (class-transformer,
 * class-validator, structuredClone) before any of it runs.
 */
export const JSON_MAX_DEPTH = 64;

/**
 * Keys refused anywhere in a payload. JSON.parse makes them ordinary own properties, but the
 * recursive copies downstream (class-transformer, object spreads, `data` merges) either drop them
 * silently or set a prototype with them: an unknown field like any other, so 400,
 * never stripped.
 */
export const FORBIDDEN_JSON_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor']);

/**
 * The first structural problem of a parsed JSON value, or null: nesting deeper than `maxDepth`
 * (the top-level object is depth 1), or a forbidden key at any depth. Iterative, so a hostile
 * value cannot overflow the stack here either; stops at the first problem.
 */
export function findJsonShapeProblem(value: unknown, maxDepth = JSON_MAX_DEPTH): FieldProblem | null {
  if (typeof value !== 'object' || value === null) return null;
  // Only objects and arrays are visited (a 50,000-node body has ten times more primitives than objects).
  const stack: Visit[] = [{ value: value as object, key: '', parent: null, depth: 1 }];
  while (stack.length > 0) {
    const visit = stack.pop() as Visit;
    if (visit.depth > maxDepth) return { field: pathOf(visit), problems: [`nesting deeper than ${maxDepth} levels`] };
    const current = visit.value;
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index += 1) {
        const item: unknown = current[index];
        if (typeof item === 'object' && item !== null)
          stack.push({ value: item, key: String(index), parent: visit, depth: visit.depth + 1 });
      }
      continue;
    }
    for (const key in current) {
      if (!Object.prototype.hasOwnProperty.call(current, key)) continue;
      if (FORBIDDEN_JSON_KEYS.has(key))
        return {
          field: pathOf({ value: current, key, parent: visit, depth: visit.depth + 1 }),
          problems: [`property ${key} should not exist`],
        };
      const item: unknown = (current as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null)
        stack.push({ value: item, key, parent: visit, depth: visit.depth + 1 });
    }
  }
  return null;
}

/** A value to look at; the path to it is built from the parents only when it is reported. */
interface Visit {
  value: object;
  key: string;
  parent: Visit | null;
  depth: number;
}

/** Longest field path reported: keys are the client's text, echoed in the answer. */
const PATH_MAX_CHARS = 200;

/** "nodes.3.data.constructor"; "(body)" for the top level; cut to PATH_MAX_CHARS. */
function pathOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | null = visit; at?.parent; at = at.parent) keys.push(at.key);
  const path = keys.length > 0 ? keys.reverse().join('.') : '(body)';
  return path.length > PATH_MAX_CHARS ? `${path.slice(0, PATH_MAX_CHARS)}…` : path;
}

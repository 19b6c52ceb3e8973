/** The bind variables an AQL text refers to: `@@name` is bind variable "@name" (a collection), `@name` is "name". */
export function referencedBindVars(queryText: string): Set<string> {
  return new Set([...queryText.matchAll(/@(@?\w+)/g)].map((match) => match[1]));
}

/** True when `needle` is, or is inside, one of the string values somewhere in `value` (bind variables, nested). */
export function containsDeep(value: unknown, needle: string): boolean {
  if (typeof value === 'string') return value.includes(needle);
  if (Array.isArray(value)) return value.some((item) => containsDeep(item, needle));
  if (value && typeof value === 'object') return Object.values(value).some((item) => containsDeep(item, needle));
  return false;
}

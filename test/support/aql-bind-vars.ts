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

/**
 * True when a LIMIT follows two or more FOR loops of the same (sub)query level. In AQL such a LIMIT
 * cuts the whole row stream of the nested loops, not each outer iteration: `FOR r IN @list FOR d IN
 * coll FILTER … LIMIT 1 REPLACE …` changes one document in total, not one per `r`. Subqueries (in
 * parentheses) are levels of their own; string literals are skipped.
 */
export function limitsNestedLoops(queryText: string): boolean {
  const text = queryText.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""');
  const loops: number[] = [0];
  for (const token of text.match(/\(|\)|\bFOR\b|\bLIMIT\b/g) ?? []) {
    if (token === '(') loops.push(0);
    else if (token === ')') loops.pop();
    else if (token === 'FOR') loops[loops.length - 1] += 1;
    else if (loops[loops.length - 1] >= 2) return true;
  }
  return false;
}

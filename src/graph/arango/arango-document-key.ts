import { FieldProblem } from '../../errors/validation-problems';
import { GraphDocument } from '../graph.types';
import { ArangoDocumentMapper } from './arango-document.mapper';

/** ArangoDB's user-defined key rule (3.12): these characters only, 1 to 254 bytes. */
const KEY_CHARACTERS = /^[A-Za-z0-9_\-.@()+,=;$!*'%:]+$/;
export const MAX_DOCUMENT_KEY_BYTES = 254;

/** The rule as callers read it in an error message. */
export const DOCUMENT_KEY_RULE = "letters, digits and _ - . @ ( ) + , = ; $ ! * ' % : only, at most 254 bytes";

/**
 * Why `key` cannot be an ArangoDB document key, or null. Checked before writing, so a key the server
 * would refuse (error 1221, a 500 otherwise) is a clear 400 naming it instead.
 */
export function documentKeyProblem(key: string): string | null {
  if (key.length === 0) return 'is empty';
  if (!KEY_CHARACTERS.test(key)) return `holds characters ArangoDB does not allow in a key (${DOCUMENT_KEY_RULE})`;
  const bytes = Buffer.byteLength(key, 'utf8');
  return bytes > MAX_DOCUMENT_KEY_BYTES ? `is ${bytes} bytes long, over ArangoDB's ${MAX_DOCUMENT_KEY_BYTES}` : null;
}

/**
 * Why a node or edge key cannot be stored in the graph: its document key is `{graphKey}-{localKey}`
 * (Nodius's layout), so the local key must follow the rule and the two together must fit 254 bytes.
 */
export function localKeyProblem(graphKey: string, localKey: string): string | null {
  const problem = documentKeyProblem(localKey);
  if (problem) return problem;
  const composite = ArangoDocumentMapper.compositeKey(graphKey, localKey);
  const bytes = Buffer.byteLength(composite, 'utf8');
  return bytes > MAX_DOCUMENT_KEY_BYTES
    ? `makes the document key "${graphKey}-…" ${bytes} bytes long, over ArangoDB's ${MAX_DOCUMENT_KEY_BYTES} (graph key, "-" and the key together)`
    : null;
}

/** Every key of a graph document ArangoDB could not store, one problem per field (the import's 400 details). */
export function documentKeyProblems(graphKey: string, document: GraphDocument): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const add = (field: string, problem: string | null, key: string): void => {
    if (problem) problems.push({ field, problems: [`key "${key}" ${problem}`] });
  };
  // Keys that are not strings are the import validator's to report.
  add('graph._key', documentKeyProblem(graphKey), graphKey);
  document.nodes.forEach((node, index) => {
    if (typeof node._key === 'string') add(`nodes[${index}]._key`, localKeyProblem(graphKey, node._key), node._key);
  });
  document.edges.forEach((edge, index) => {
    if (typeof edge._key === 'string') add(`edges[${index}]._key`, localKeyProblem(graphKey, edge._key), edge._key);
  });
  document.nodeConfigs.forEach((config, index) => {
    if (typeof config._key === 'string')
      add(`nodeConfigs[${index}]._key`, documentKeyProblem(config._key), config._key);
  });
  return problems;
}

import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runInNewContext } from 'node:vm';

/** What docker/arangodb/create-vector-index.js passes to `ensureIndex`. */
export interface VectorIndexDefinition {
  type: 'vector';
  name: string;
  fields: [string];
  sparse: boolean;
  inBackground: boolean;
  storedValues?: string[];
  params: { metric: 'cosine'; dimension: number; nLists: number; defaultNProbe: number };
}

const SCRIPT = readFileSync(path.join(__dirname, '../../docker/arangodb/create-vector-index.js'), 'utf8');

/**
 * Runs the arangosh script as `arangosh --javascript.execute … -- <dimension>` would, against a
 * stand-in `db` on a server of `version` holding `embedded` vectors of that dimension, and returns
 * the index definition it creates (what it prints too). Tests check the definition, and the ArangoDB
 * suite builds exactly this index on a real server.
 */
export function runVectorIndexScript(
  version: string,
  embedded: number,
  dimension: string,
): { definition: VectorIndexDefinition; printed: string[] } {
  let definition: VectorIndexDefinition | undefined;
  const printed: string[] = [];
  const db = {
    _version: () => version,
    _name: () => 'nodius',
    _collection: (name: string) =>
      name === 'nodius_nodes'
        ? {
            ensureIndex: (wanted: VectorIndexDefinition) => {
              definition = wanted;
              return { ...wanted, id: 'nodius_nodes/1' };
            },
          }
        : null,
    _query: () => ({ toArray: () => [embedded] }),
  };
  runInNewContext(SCRIPT, {
    require: (module: string) => {
      if (module !== '@arangodb') throw new Error(`unexpected require ${module}`);
      return { db };
    },
    ARGUMENTS: [dimension],
    print: (text: string) => printed.push(text),
  });
  if (!definition) throw new Error('the script created no index');
  // A plain object of this realm (the script built it in the VM's), as arangojs would send it.
  return { definition: JSON.parse(JSON.stringify(definition)) as VectorIndexDefinition, printed };
}

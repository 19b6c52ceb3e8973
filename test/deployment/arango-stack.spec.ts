import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { runVectorIndexScript } from '../support/vector-index.script';

const root = path.resolve(__dirname, '../..');
const compose = readFileSync(path.join(root, 'docker-compose.yml'), 'utf8');
const indexScript = readFileSync(path.join(root, 'docker/arangodb/create-vector-index.js'), 'utf8');

/** The lines of one top-level service of docker-compose.yml (up to the next service or section). */
function serviceBlock(name: string): string {
  const start = compose.indexOf(`\n  ${name}:\n`);
  expect(start).toBeGreaterThan(0);
  const rest = compose.slice(start + 1);
  const end = rest.slice(1).search(/\n {2}[a-z][\w-]*:\n|\n[a-z]/);
  return end < 0 ? rest : rest.slice(0, end + 1);
}

describe('docker-compose ArangoDB', () => {
  it('starts with vector indexes enabled under the option name of 3.12.6+, never the old experimental one', () => {
    const arangodb = serviceBlock('arangodb');
    expect(arangodb).toMatch(/image: arangodb:3\.12\.(\d+)/);
    expect(Number(arangodb.match(/image: arangodb:3\.12\.(\d+)/)?.[1])).toBeGreaterThanOrEqual(7); // storedValues
    expect(arangodb).toContain('command: ["--vector-index=true"]');
    expect(compose).not.toMatch(/^[^#\n]*--experimental-vector-index/m);
  });

  it('is reachable from the host for `npm run test:arango`: port 8529 on localhost, root with ARANGO_PASSWORD', () => {
    const arangodb = serviceBlock('arangodb');
    expect(arangodb).toContain('"127.0.0.1:${ARANGO_PORT:-8529}:8529"');
    expect(arangodb).toMatch(/ARANGO_ROOT_PASSWORD: \$\{ARANGO_PASSWORD/);
    expect(compose).toMatch(/ARANGO_URL=http:\/\/127\.0\.0\.1:8529 ARANGO_PASSWORD=.* npm run test:arango/);
  });
});

describe('docker/arangodb/create-vector-index.js', () => {
  it('builds a sparse cosine index in the background, with the graph filter stored in it and a sane default nProbe', () => {
    const { definition, printed } = runVectorIndexScript('3.12.7', 10_000, '1536');
    expect(definition).toEqual({
      type: 'vector',
      name: 'nodius_ai_embedding_cosine',
      fields: ['embedding'],
      sparse: true,
      inBackground: true,
      storedValues: ['graphKey', 'embeddingModel'],
      params: { metric: 'cosine', dimension: 1536, nLists: 400, defaultNProbe: 20 },
    });
    expect(printed.join('\n')).toContain('nLists 400');
  });

  it('leaves storedValues out on 3.12.6, which does not know them, and never asks for more centroids than vectors', () => {
    const { definition } = runVectorIndexScript('3.12.6', 9, '1536');
    expect(definition.storedValues).toBeUndefined();
    expect(definition.params).toEqual({ metric: 'cosine', dimension: 1536, nLists: 9, defaultNProbe: 3 });
  });

  it('refuses a server that cannot filter an index lookup by graph, a missing dimension, and a collection without vectors', () => {
    expect(() => runVectorIndexScript('3.12.5', 1_000, '1536')).toThrow(/3\.12\.6 or later/);
    expect(() => runVectorIndexScript('3.12.7', 1_000, 'x')).toThrow(/usage/);
    expect(() => runVectorIndexScript('3.12.7', 0, '1536')).toThrow(/embed the nodes first/);
  });

  it('names the startup option as 3.12.6+ spells it', () => {
    expect(indexScript).toContain('--vector-index=true');
  });
});

describe('npm run test:arango', () => {
  const script = (
    JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts['test:arango'];

  it("runs every ArangoDB contract suite (each store's arango-*.contract.spec.ts), and nothing else", () => {
    const [check, jest] = script.split(' && ');
    expect(check).toBe('node test/support/arango-url.check.js');
    const pattern = new RegExp(jest.split(' ').at(-1) as string);
    const contracts = readdirSync(path.join(root, 'test/contract')).filter((file) => file.endsWith('.spec.ts'));
    const arangoContracts = contracts.filter((file) => file.startsWith('arango-')).sort();
    expect(arangoContracts).toEqual(
      expect.arrayContaining([
        'arango-action-policy-repository.contract.spec.ts',
        'arango-automation-repository.contract.spec.ts',
        'arango-graph-store.contract.spec.ts',
        'arango-memory-repository.contract.spec.ts',
        'arango-provider-config-repository.contract.spec.ts',
        'arango-thread-repository.contract.spec.ts',
      ]),
    );
    expect(contracts.filter((file) => pattern.test(`test/contract/${file}`)).sort()).toEqual(arangoContracts);
  });

  it('fails clearly, saying how to start the server, when ARANGO_URL is not set', () => {
    const checkFile = path.join(root, 'test/support/arango-url.check.js');
    const { ARANGO_URL: _unset, ...environment } = process.env;
    const without = spawnSync(process.execPath, [checkFile], { env: environment, encoding: 'utf8' });
    expect(without.status).toBe(1);
    expect(without.stderr).toContain('set ARANGO_URL');
    expect(without.stderr).toContain('docker compose up -d arangodb');
    const withUrl = spawnSync(process.execPath, [checkFile], {
      env: { ...environment, ARANGO_URL: 'http://user:secret@127.0.0.1:8529' },
      encoding: 'utf8',
    });
    expect(withUrl.status).toBe(0);
    expect(withUrl.stdout).toContain('http://127.0.0.1:8529');
    expect(withUrl.stdout).not.toContain('secret');
  });
});

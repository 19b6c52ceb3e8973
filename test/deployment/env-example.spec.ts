import { getMetadataStorage } from 'class-validator';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseEnv } from 'node:util';
import { loadAppConfig } from '../../src/config/load-app-config';
import { EnvironmentVariables } from '../../src/config/environment-variables';
import { ProviderRegistry } from '../../src/config/provider-registry';

const root = path.resolve(__dirname, '../..');
const example = readFileSync(path.join(root, '.env.example'), 'utf8');

/** Every NAME that appears as `NAME=` or `# NAME=` at the start of a line. */
function documentedNames(text: string): Set<string> {
  return new Set([...text.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]));
}

describe('.env.example', () => {
  it('documents every variable the service validates', () => {
    // Every variable carries at least one class-validator rule, so the metadata lists them all.
    const declared = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(EnvironmentVariables, '', true, false)
        .map((metadata) => metadata.propertyName),
    );
    expect(declared.size).toBeGreaterThan(40);
    const names = documentedNames(example);
    for (const name of declared) expect({ name, documented: names.has(name) }).toEqual({ name, documented: true });
  });

  it('documents every provider key and base URL override of config/providers.json', () => {
    const registry = ProviderRegistry.fromJson(
      JSON.parse(readFileSync(path.join(root, 'config/providers.json'), 'utf8')),
    );
    const names = documentedNames(example);
    for (const entry of registry.names().map((name) => registry.get(name))) {
      if (!entry) continue;
      if (entry.apiKeyEnvVar)
        expect({ key: entry.apiKeyEnvVar, documented: names.has(entry.apiKeyEnvVar) }).toEqual({
          key: entry.apiKeyEnvVar,
          documented: true,
        });
      const override = `${entry.name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_BASE_URL`;
      expect({ override, documented: names.has(override) }).toEqual({ override, documented: true });
    }
  });

  it('is a valid configuration as shipped (no empty values that would be refused)', () => {
    const values = parseEnv(example) as Record<string, string>;
    expect(Object.values(values).every((value) => value !== '')).toBe(true);
    expect(() => loadAppConfig({ ...values, DATA_DIR: '/tmp/unused' })).not.toThrow();
    expect(() =>
      loadAppConfig({ ...values, NODE_ENV: 'production', STORE: 'arango', ARANGO_URL: 'http://arangodb:8529' }),
    ).not.toThrow();
  });
});

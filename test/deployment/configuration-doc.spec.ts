import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  expectedConfigurationDoc,
  parseEnvExample,
  renderConfigurationReference,
  schemaVariables,
  withGeneratedPart,
  BEGIN_MARKER,
  END_MARKER,
} from '../../scripts/configuration-reference';
import { ProviderRegistry, baseUrlOverrideVariable } from '../../src/config/provider-registry';

const root = path.resolve(__dirname, '../..');
const example = readFileSync(path.join(root, '.env.example'), 'utf8');
const doc = readFileSync(path.join(root, 'docs/configuration.md'), 'utf8');

/** The variables a table row of docs/configuration.md names in its first cell. */
function documentedInTables(text: string): Set<string> {
  const names = new Set<string>();
  for (const row of text.split('\n').filter((line) => line.startsWith('| `'))) {
    for (const match of row.split(' | ')[0].matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(match[1]);
  }
  return names;
}

describe('docs/configuration.md', () => {
  it('is what `npm run docs:configuration` renders from .env.example and the config schema', () => {
    const { current, expected } = expectedConfigurationDoc(root);
    if (current !== expected) {
      throw new Error(
        'docs/configuration.md differs from .env.example and src/config: run `npm run docs:configuration`',
      );
    }
  });

  it('has a row for every variable of the config schema, of .env.example and of config/providers.json', () => {
    const documented = documentedInTables(doc);
    const registry = ProviderRegistry.fromJson(
      JSON.parse(readFileSync(path.join(root, 'config/providers.json'), 'utf8')),
    );
    const expected = new Set([
      ...schemaVariables().keys(),
      ...parseEnvExample(example)
        .flatMap((section) => section.entries.flatMap((entry) => entry.variables))
        .map((v) => v.name),
      ...registry.entries().flatMap((entry) => [entry.apiKeyEnvVar ?? [], baseUrlOverrideVariable(entry.name)].flat()),
    ]);
    expect(expected.size).toBeGreaterThan(60);
    const missing = [...expected].filter((name) => !documented.has(name));
    expect(missing).toEqual([]);
  });

  it('is refused when a variable is added to .env.example and the file is not regenerated', () => {
    const added = example.replace('# ── Limits', '# A variable added since.\n# ADDED_SINCE=1\n\n# ── Limits');
    const registry = ProviderRegistry.fromJson(
      JSON.parse(readFileSync(path.join(root, 'config/providers.json'), 'utf8')),
    );
    expect(withGeneratedPart(doc, renderConfigurationReference(added, registry))).not.toEqual(doc);
    expect(documentedInTables(doc).has('ADDED_SINCE')).toBe(false);
  });

  it('keeps its generated part between its two markers, once', () => {
    expect(doc.split(BEGIN_MARKER)).toHaveLength(2);
    expect(doc.split(END_MARKER)).toHaveLength(2);
  });
});

describe('.env.example against the config schema', () => {
  it('shows each commented-out default as the schema declares it', () => {
    const schema = schemaVariables();
    const mismatches: string[] = [];
    for (const section of parseEnvExample(example))
      for (const entry of section.entries)
        for (const variable of entry.variables) {
          const declared = schema.get(variable.name)?.defaultValue;
          if (declared === undefined || variable.active || variable.value === '') continue;
          if (String(declared) !== variable.value)
            mismatches.push(`${variable.name}=${variable.value} (schema: ${declared})`);
        }
    expect(mismatches).toEqual([]);
  });

  it('puts every variable line in a section', () => {
    const lines = [...example.matchAll(/^#? ?([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
    const parsed = parseEnvExample(example).flatMap((section) => section.entries.flatMap((entry) => entry.variables));
    expect(parsed.map((variable) => variable.name)).toEqual(lines);
  });
});

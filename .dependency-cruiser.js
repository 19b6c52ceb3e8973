/**
 * The module boundaries of src/, checked by `npm run check:boundaries` (part of `npm test`): docs/architecture.md.
 * Every rule is an error, so a new import cycle or an import against the direction below fails the tests.
 */

/**
 * The modules of src/, lowest first: a module imports only modules of LOWER layers (never one of its own layer, never
 * a higher one), so no two modules can import each other, even through others. A new module takes its place here.
 */
const LAYERS = [
  ['config', 'observability', 'worker-threads'],
  ['errors', 'redis'],
  ['auth', 'database', 'validation'],
  ['graph'],
  ['conversation'],
  ['providers', 'policy', 'changes', 'always-send'],
  ['embeddings'],
  ['rag'],
  ['threads'],
  ['memory'],
  ['ai'],
  ['health', 'playground', 'automations'],
];

/** The application's wiring, above every layer: it may import anything, and nothing imports it. */
const WIRING = ['cli/', 'persistence/', 'app\\.module\\.ts$', 'app\\.factory\\.ts$', 'main\\.ts$'];

/**
 * The schema history of the embedded store is one ordered list (src/database/sqlite/sqlite-migrations.ts) of
 * migrations that live in the modules owning their tables (`*.sqlite-migration.ts`): the database module may import
 * them, and they import nothing but the migration type, so they never pull a module into the database layer.
 */
const SQLITE_MIGRATION_FILE = '\\.sqlite-migration\\.ts$';

const alternatives = (names) => names.join('|');

const layerRules = LAYERS.flatMap((layer, index) =>
  layer.map((module) => {
    const notBelow = LAYERS.slice(index)
      .flat()
      .filter((other) => other !== module);
    return {
      name: `layers:${module}`,
      comment: `src/${module} imports only modules of lower layers (docs/architecture.md), not ${notBelow.join(', ')}, nor the wiring.`,
      severity: 'error',
      from: { path: `^src/${module}/` },
      to: {
        path: `^src/(${alternatives([...notBelow.map((name) => `${name}/`), ...WIRING])})`,
        ...(module === 'database' ? { pathNot: SQLITE_MIGRATION_FILE } : {}),
      },
    };
  }),
);

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No file imports itself through other files (docs/architecture.md).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'module-in-a-layer',
      comment:
        'Every module of src/ has its place in LAYERS (or is wiring): add a new one to .dependency-cruiser.js and docs/architecture.md.',
      severity: 'error',
      from: {
        path: '^src/',
        pathNot: `^src/(${alternatives([...LAYERS.flat().map((name) => `${name}/`), ...WIRING])})`,
      },
      to: { path: '^src/' },
    },
    {
      name: 'observability-imports-no-module',
      comment:
        'Observability (logger, metrics registry) imports no module of ours: each module registers its own metrics on its registry.',
      severity: 'error',
      from: { path: '^src/observability/' },
      to: { path: '^src/', pathNot: '^src/observability/' },
    },
    {
      name: 'conversation-is-a-leaf',
      comment: "The conversation types import nothing of ours but the graph's domain types (which import nothing).",
      severity: 'error',
      from: { path: '^src/conversation/' },
      to: { path: '^src/', pathNot: '^src/(conversation/|graph/graph\\.types\\.ts$|graph/graph-change-set\\.ts$)' },
    },
    {
      name: 'graph-types-are-leaves',
      comment: "The graph's domain types, on which the conversation types build, import nothing of ours.",
      severity: 'error',
      from: { path: '^src/graph/(graph\\.types|graph-change-set)\\.ts$' },
      to: { path: '^src/', pathNot: '^src/graph/(graph\\.types|graph-change-set)\\.ts$' },
    },
    {
      name: 'only-wiring-imports-ai',
      comment:
        'Nothing imports the agent (src/ai) but the application wiring (app.module.ts, cli/) and the automations, whose runs it runs.',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(${alternatives(['ai/', 'automations/', ...WIRING])})` },
      to: { path: '^src/ai/' },
    },
    {
      name: 'sqlite-migrations-are-leaves',
      comment:
        'A *.sqlite-migration.ts imports only the migration type: the schema history may import it from any module.',
      severity: 'error',
      from: { path: SQLITE_MIGRATION_FILE },
      to: { path: '^src/', pathNot: '^src/database/sqlite/sqlite-migration\\.ts$' },
    },
    ...layerRules,
  ],
  options: {
    // Type-only imports count: a cycle through types is still a cycle for a reader and for the compiler.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Specs are checked like the code beside them; the test harness they share (test/) is not followed.
    doNotFollow: { path: ['node_modules', '^test/'] },
  },
};

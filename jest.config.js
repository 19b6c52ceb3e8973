/** Jest runs TypeScript through SWC (fast, decorator metadata on); `npm test` type-checks separately with tsc. */
const swcTsx = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', tsx: true },
      transform: { react: { runtime: 'automatic' } },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
  },
];

module.exports = {
  testEnvironment: 'node',
  // client/: the client package (an npm workspace); its component specs pick the jsdom environment in their docblock.
  roots: ['<rootDir>/src', '<rootDir>/test', '<rootDir>/faults', '<rootDir>/client/src', '<rootDir>/client/playground'],
  testMatch: ['**/*.spec.ts', '**/*.spec.tsx', '**/*.e2e-spec.ts', '**/*.fault-spec.ts'],
  // @toon-format/toon and p-limit (with its yocto-queue) ship ESM only: let SWC turn them into CommonJS for
  // Jest's module loader (Node itself requires them as ES modules, see docs/dependencies.md).
  transform: { '^.+\\.tsx$': swcTsx, '^.+\\.(ts|mjs|js)$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@toon-format|p-limit|yocto-queue)/)'],
  moduleFileExtensions: ['ts', 'tsx', 'js', 'mjs', 'json'],
  testTimeout: 30000,
  maxWorkers: 2,
  // The default output plus the name of every skipped test, so a skipped suite says why.
  reporters: ['default', '<rootDir>/test/support/skipped-tests.reporter.js'],
};

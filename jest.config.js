/** Jest runs TypeScript through SWC (fast, decorator metadata on); `npm test` type-checks separately with tsc. */
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
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts'],
  // @toon-format/toon and p-limit (with its yocto-queue) ship ESM only: let SWC turn them into CommonJS for
  // Jest's module loader (Node itself requires them as ES modules, see docs/dependencies.md).
  transform: { '^.+\\.(ts|mjs|js)$': swc },
  transformIgnorePatterns: ['/node_modules/(?!(@toon-format|p-limit|yocto-queue)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'json'],
  testTimeout: 30000,
  maxWorkers: 2,
  // The default output plus the name of every skipped test, so a skipped suite says why.
  reporters: ['default', '<rootDir>/test/support/skipped-tests.reporter.js'],
};

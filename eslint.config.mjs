// @ts-check
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * Type-aware lint for a streaming service: a promise nobody awaits or catches is a lost error or an unhandled
 * rejection that kills the process, so those rules are errors. Formatting is Prettier's job; `npm run lint` runs both.
 */
export default tseslint.config(
  {
    ignores: ['dist/**', 'client/dist/**', 'coverage/**', 'data/**', 'test-artifacts/**', 'node_modules/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Plain CommonJS and ESM scripts: configuration files, jest reporters, the client's build script.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: globals.node },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Runs inside arangosh (ArangoDB's shell), not Node: its globals are arangosh's.
    files: ['docker/arangodb/*.js'],
    languageOptions: { globals: { ARGUMENTS: 'readonly', print: 'readonly', db: 'readonly', require: 'readonly' } },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // A variable read by a closure before its one assignment cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests read untyped wire bodies and recorded fixtures; typing each would restate the SDKs' own types.
    files: ['test/**/*.ts', 'faults/**/*.ts', '**/*.spec.ts', '**/*.spec.tsx', '**/*.e2e-spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);

// Lint rules: typescript-eslint's recommended type-aware set, plus a few rules that catch real bugs.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'data/**', 'packages/*/dist/**', 'console/dist/**', 'console/.dist-*/**', '.bench-build/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] }] },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
      // Fastify hooks and interface implementations are async without awaiting; that is fine.
      '@typescript-eslint/require-await': 'off',
      // Node 20's V8 builds `{ ...x, more }` (a spread first, then properties) by cloning x's map and adding
      // each later property as a new map, on every call: microseconds per object and garbage maps for the GC
      // (the refund engine's ticket quote cost 150 µs that way; docs/architecture.md "Performance targets").
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ObjectExpression > SpreadElement:first-child ~ Property',
          message: 'A spread followed by properties is slow on Node 20 (a new map per call): name the fields, or use Object.assign({}, x, { ... }).',
        },
      ],
    },
  },
  {
    // Built once at start-up or load (schemas, configuration, wiring), or test and tool code: no per-request cost.
    files: ['src/**/wire.ts', 'src/**/wire-*.ts', 'src/cli.ts', 'src/config.ts', 'src/service.ts', 'src/workers.ts', 'src/app.ts', 'src/store/store.ts', 'src/console/**', 'console/**', 'packages/**', 'eslint.config.js'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['**/*.test.ts', 'test/**', 'bench/**', 'scripts/**', 'src/test-support/**'],
    rules: {
      'no-restricted-syntax': 'off',
      'no-console': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['eslint.config.js'], ...tseslint.configs.disableTypeChecked },
  {
    files: ['.dependency-cruiser.cjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, sourceType: 'commonjs', globals: { module: 'writable' } },
  },
);

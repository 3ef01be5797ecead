import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules', 'dist', 'data', 'worker', 'src/generated', 'tests/artifacts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  // One-way imports: the engine is pure (no React, no app, no server); renderers never import the
  // app; the server never imports the browser app or renderers.
  {
    files: ['src/engine/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: ['react', 'react-dom', '**/renderers/**', '**/app/**', '**/server/**'] },
      ],
    },
  },
  {
    files: ['src/renderers/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/app/**', '**/server/**'] }] },
  },
  {
    files: ['server/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: ['**/src/app/**', '**/src/renderers/**'] }] },
  },
);

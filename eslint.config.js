import { readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';

// Rooms and doors: each zone names who may not import whom. Paths are resolved files (the import-x
// resolver follows relative imports, directory indexes and .ts/.tsx extensions), so a zone holds
// however the import is spelled. tests/repo/import-zones.test.ts proves each zone with an offending
// snippet.
const ROOT = import.meta.dirname;
const at = (dir) => path.join(ROOT, dir);

/** Imports of Node's built-in modules, with and without the `node:` prefix. */
const NO_NODE = {
  group: ['node:*', ...builtinModules.filter((name) => !name.startsWith('_'))],
  message: 'Node APIs belong in src/engine/node/ (the engine also runs in the browser).',
};
const NO_REACT = {
  group: ['react', 'react/*', 'react-dom', 'react-dom/*'],
  message: 'The engine is UI-free.',
};

/** @type {{ target: string | string[], from: string | string[], except?: string[], message: string }[]} */
export const IMPORT_ZONES = [
  {
    target: at('src/engine'),
    from: [at('src/app'), at('src/renderers'), at('server')],
    message: 'The engine is pure: it imports nothing of the app, the renderers or the server.',
  },
  {
    target: at('src/renderers'),
    from: [at('src/app'), at('server')],
    message: 'Renderers draw what the engine says; they never import the app or the server.',
  },
  {
    target: at('server'),
    from: [at('src/app'), at('src/renderers')],
    message: 'The server never imports the browser app or the renderers.',
  },
  {
    target: [at('src'), at('server')],
    from: at('codegen'),
    message:
      'Codegen is a build step that imports the server (for its OpenAPI document); nothing imports it back.',
  },
  {
    target: [at('src'), at('server'), at('codegen')],
    from: at('tests'),
    message: 'Nothing outside tests/ imports tests/ (shared code belongs beside the code that uses it).',
  },
];

// The web app in three layers, one way (as bulletproof-react keeps its features apart): shared code
// (components, api, format, routing, session, styles, tracking, test-support) -> features -> the app
// (app.tsx, main.tsx, pages/, which compose features). A feature imports itself and the shared layers,
// never another feature: what two features need belongs in a shared layer.
const APP_SHARED = [
  'components',
  'api',
  'format',
  'routing',
  'session',
  'styles',
  'tracking',
  'test-support',
];
const APP_COMPOSERS = ['src/app/app.tsx', 'src/app/main.tsx', 'src/app/pages'].map(at);
const FEATURES = readdirSync(at('src/app/features'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

/** @type {typeof IMPORT_ZONES} */
export const APP_ZONES = [
  ...FEATURES.map((feature) => ({
    target: at(`src/app/features/${feature}`),
    from: at('src/app/features'),
    except: [`./${feature}`],
    message: `A feature imports only itself and the shared layers (src/app/${APP_SHARED.join(', ')}); what two features share belongs there, and pages/ composes features.`,
  })),
  {
    target: APP_SHARED.map((dir) => at(`src/app/${dir}`)),
    from: [at('src/app/features'), ...APP_COMPOSERS],
    message: 'Shared app code imports no feature and no page: features build on it, not the other way.',
  },
  {
    target: at('src/app/features'),
    from: APP_COMPOSERS,
    message: 'Features never import the app shell or pages/ (they compose features, not the other way).',
  },
];

// The server in three layers, one way (as fastify/demo loads it): the layer every feature builds on
// (platform/, db/, mail/, storage/ and config.ts) -> features (every other folder) -> the composition
// root (app.ts, routes.ts, services.ts and the two mains), which wires services and registers routes. A
// feature reaches another only through the files that feature declares for others (its services,
// repositories, shared schemas and the worker bridge), never its routes or internals.
const SERVER_BASE = ['platform', 'db', 'mail', 'storage'];
const SERVER_ROOT = ['app.ts', 'routes.ts', 'services.ts', 'main.ts', 'queue-worker-main.ts'].map((file) =>
  at(`server/${file}`),
);
const SERVER_FEATURES = readdirSync(at('server'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && ![...SERVER_BASE, 'test-support'].includes(entry.name))
  .map((entry) => entry.name);
/** What each feature offers the others; a feature not listed offers nothing. */
export const SERVER_FEATURE_API = {
  accounts: ['accounts-service.ts'],
  applications: ['application-schemas.ts', 'applications-repository.ts', 'applications-service.ts'],
  auth: [
    'account-schemas.ts',
    'auth-plugin.ts',
    'auth-service.ts',
    'passwords.ts',
    'sign-in-gate.ts',
    'users-repository.ts',
  ],
  datasets: [
    'csv-formula-escape.ts',
    'dataset-refusal.ts',
    'dataset-resolver.ts',
    'dataset-store.ts',
    'datasets.ts',
    'url-fetcher.ts',
  ],
  jobs: [
    'event-stream.ts',
    'job-queue.ts',
    'job-result.ts',
    'job-runner.ts',
    'job-states.ts',
    'jobs-repository.ts',
    'jobs-service.ts',
    'sealed-tokens.ts',
    'worker-call.ts',
    'worker-launcher.ts',
    'worker-process.ts',
    'worker-protocol.ts',
  ],
  'market-data': ['market-data.ts'],
  outputs: ['output-detail.ts', 'outputs-service.ts'],
  'quantum-devices': ['provider-token.ts'],
  samples: ['sample-catalog.ts'],
};

/** @type {typeof IMPORT_ZONES} */
export const SERVER_ZONES = [
  {
    target: SERVER_BASE.map((dir) => at(`server/${dir}`)),
    from: [...SERVER_FEATURES.map((feature) => at(`server/${feature}`)), ...SERVER_ROOT],
    message:
      'platform/, db/, mail/ and storage/ are what features build on: they import no feature and not the composition root.',
  },
  {
    target: SERVER_FEATURES.map((feature) => at(`server/${feature}`)),
    from: SERVER_ROOT,
    message:
      'Features never import the composition root (app.ts, routes.ts, services.ts, the mains): it wires them.',
  },
  ...SERVER_FEATURES.map((feature) => ({
    target: SERVER_FEATURES.filter((other) => other !== feature).map((other) => at(`server/${other}`)),
    from: at(`server/${feature}`),
    except: (SERVER_FEATURE_API[feature] ?? []).map((file) => `./${file}`),
    message: `Other features reach server/${feature}/ only through the files it declares in SERVER_FEATURE_API (eslint.config.js): ${(SERVER_FEATURE_API[feature] ?? ['none']).join(', ')}.`,
  })),
];

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
  {
    files: ['**/*.{ts,tsx,js}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      // eslint-plugin-import-x is pinned at 4.6 (with eslint-import-resolver-node): later releases
      // need unrs-resolver, whose platform bindings this registry lacks, which breaks `npm ci`.
      'import-x/resolver': { node: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json', '.css'] } },
      // Packages are never parsed for their exports or walked by the cycle check (a package cannot
      // import our files back, so no cycle of ours passes through one).
      'import-x/ignore': ['node_modules'],
    },
    rules: {
      // Unresolved relative imports would silently escape the zones and the cycle check below.
      'import-x/no-unresolved': ['error', { ignore: ['^[^.]'] }],
      'import-x/no-restricted-paths': ['error', { zones: IMPORT_ZONES }],
      // Not ignoreExternal: with it the rule resolves every import specifier of every module it walks
      // again, relative to the file being linted, to ask whether it is a package (half of eslint's
      // CPU time in this repository); import-x/ignore above keeps packages out of the walk instead.
      'import-x/no-cycle': 'error',
    },
  },
  // Packages by name: the engine imports neither React nor Node outside its Node side
  // (src/engine/node/, which reads schema files from disk). Its tests run in Node and may use it.
  {
    files: ['src/engine/**'],
    ignores: ['src/engine/node/**', 'src/engine/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_REACT, NO_NODE] }] },
  },
  {
    files: ['src/engine/**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [NO_REACT] }] },
  },
  // Between app features (tests may compose pages as the app does, so they are left out).
  {
    files: ['src/app/**/*.{ts,tsx}'],
    ignores: ['src/app/**/*.test.{ts,tsx}'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: [...IMPORT_ZONES, ...APP_ZONES] }] },
  },
  // Between server layers and features (tests may reach into any feature to set up what they test).
  {
    files: ['server/**/*.ts'],
    ignores: ['server/**/*.test.ts', 'server/test-support/**'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: [...IMPORT_ZONES, ...SERVER_ZONES] }] },
  },
);

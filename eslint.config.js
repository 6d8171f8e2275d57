// Lint: typescript-eslint's strict type-checked rules, and the house's import rules: no cycles (type
// imports included), and imports run down the floors below only. `npm run lint`; `npm test` runs it.
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import tseslint from 'typescript-eslint';

/**
 * The floors of src/, lowest first. A folder may import its own files and the index.ts of
 * any folder on a lower floor (core, store and http whole); never one on its own or a higher
 * floor. The composition root (app.ts, deps.ts, server.ts, main.ts, config.ts with config/, cli/) sits on top.
 */
const FLOORS = [
  'core',
  'store',
  'http',
  'live',
  'clock',
  'webhooks',
  'relay',
  'readings',
  'alerts',
  'locations',
  'subscriptions',
  'journal',
  'faults',
  'auth',
  'scenarios',
  'readiness',
  'accounts',
  'dashboard',
  'demo',
  'mcp',
  'openapi',
];
/** Plumbing that features use in parts, not through an index. */
const OPEN_FLOORS = new Set(['core', 'store', 'http']);

const floorZones = FLOORS.flatMap((folder, index) => [
  {
    target: `./src/${folder}`,
    from: ['./src/*.ts', './src/config/**', ...FLOORS.slice(index + 1).map((above) => `./src/${above}/**`)],
    message: `src/${folder} is below the folders it imports here; depend downwards only (see eslint.config.js FLOORS).`,
  },
  // A feature reaches a lower feature through its index.ts only.
  ...FLOORS.slice(0, index)
    .filter((below) => !OPEN_FLOORS.has(below))
    .map((below) => ({
      target: `./src/${folder}`,
      from: `./src/${below}/**`,
      // The presenter view's page reuses the dashboard page's modules (demoClientZone keeps it to them).
      except: [
        `**/src/${below}/index.ts`,
        ...(folder === 'demo' && below === 'dashboard' ? ['**/src/dashboard/client/**'] : []),
      ],
      message: `import src/${below} through its index.ts`,
    })),
]);

/**
 * The dashboard's browser code is bundled for the browser: it may import itself, the one shared
 * module of types and paths (no server imports), and packages; nothing else of the server.
 */
const clientZone = {
  target: './src/dashboard/client',
  from: './src',
  except: ['./dashboard/client', './dashboard/page-config.ts', './dashboard/api-types.ts'],
  message:
    'the browser code (src/dashboard/client) imports only itself, src/dashboard/page-config.ts and src/dashboard/api-types.ts; server code would end up in the bundle',
};

/** The presenter view's browser code: itself, its shared module and types, and the dashboard page's browser code. */
const demoClientZones = [
  {
    target: './src/demo/client',
    from: './src',
    except: [
      './demo/client',
      './demo/page-config.ts',
      './demo/view-types.ts',
      './dashboard/client',
      './dashboard/page-config.ts',
      './dashboard/api-types.ts',
    ],
    message:
      'the browser code (src/demo/client) imports only itself, src/demo/page-config.ts, src/demo/view-types.ts and the dashboard page (src/dashboard/client); server code would end up in the bundle',
  },
  {
    target: './src/demo/*.ts',
    from: './src/dashboard/client',
    message: "the presenter view's server code does not import browser code (src/dashboard/client)",
  },
];

/**
 * The package's entry points for tests (water-sandbox/client, water-sandbox/testcontainers) are
 * bundled on their own: they import themselves (the module the client and core/loopback.ts) and
 * packages; of the server only types, through src/client/types.ts.
 */
const packageZones = [
  {
    target: './src/client/!(types).ts',
    from: './src',
    except: ['./client'],
    message:
      'water-sandbox/client imports only src/client (server types through src/client/types.ts): server code would end up in its bundle',
  },
  {
    target: './src/testcontainers',
    from: './src',
    except: ['./testcontainers', './client', './core/loopback.ts'],
    message:
      'water-sandbox/testcontainers imports only itself, src/client and src/core/loopback.ts (the one rule of what is loopback, which imports nothing of the project): server code would end up in its bundle',
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/**', 'test/**/fixtures/**', '*.js'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts'],
    extends: [tseslint.configs.strictTypeChecked],
    plugins: { 'import-x': importX },
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-self-import': 'error',
      'import-x/order': [
        'error',
        {
          groups: ['builtin', 'external', ['parent', 'sibling', 'index']],
          'newlines-between': 'always',
          alphabetize: { order: 'asc', caseInsensitive: true },
        },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      // strictTypeChecked sets every allow* false; numbers read well in messages, the rest (objects, nullish, booleans) do not.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allowAny: false,
          allowBoolean: false,
          allowNever: false,
          allowNullish: false,
          allowNumber: true,
          allowRegExp: false,
        },
      ],
      // `() => res.end()` and `(done) => server.close(done)` are the common callback shape; a void in any other place still counts.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { zones: [...floorZones, clientZone, ...demoClientZones, ...packageZones] },
      ],
      // Every "now" comes from an injected clock; process.env is read in main.ts and config only.
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.object.name='Date'][callee.property.name='now']",
          message: 'Use the injected Clock (core/clock.ts).',
        },
        {
          selector: "NewExpression[callee.name='Date'][arguments.length=0]",
          message: 'Use the injected Clock (core/clock.ts).',
        },
      ],
    },
  },
  {
    // The API's answer types for the browser code: anything but a type would take server code into its bundle.
    files: ['src/dashboard/api-types.ts', 'src/demo/view-types.ts', 'src/client/types.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[importKind='value']",
          message: 'Types only: a browser or package bundle takes this file; use `import type`.',
        },
        {
          selector: 'ExportNamedDeclaration[exportKind="value"], ExportDefaultDeclaration',
          message: 'Types only: a browser or package bundle takes this file; export types.',
        },
      ],
    },
  },
  {
    files: ['src/core/clock.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // Tests await supertest chains and use jest's loose typing where it reads better.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
      // Supertest's bodies are `any` (as the unsafe-* rules above accept); numbers read well in messages.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        {
          allowAny: true,
          allowBoolean: false,
          allowNever: false,
          allowNullish: false,
          allowNumber: true,
          allowRegExp: false,
        },
      ],
      // A `!` in a test is its claim: when the value is missing the test fails at once, which is what it is for.
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);

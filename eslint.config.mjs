// ESLint flat config: @eslint/js recommended + typescript-eslint recommended (syntax only, no
// type information: the whole tree lints in seconds on 2 cores). Zero warnings (`npm run lint`
// passes --max-warnings 0); it runs in `npm test`'s lint layer, right after the build.
//
// Every `eslint-disable*` comment must say why on the same line (`// eslint-disable-line rule -- why`):
// enforced by the local rule `session-ops/disable-needs-reason` below; disables that no longer
// suppress anything are errors (`reportUnusedDisableDirectives`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import { layerZones, ROOT } from './eslint/layers.mjs';
import { FILE_LENGTH_EXCEPTIONS, MAX_LINES } from './eslint/file-length.mjs';
import { guardedPromptIssuer, noDialectComparison, noFolderListing, noTypeCycle } from './eslint/rules.mjs';

const DIRECTIVE = /^\s*eslint-(disable|enable)(-next-line|-line)?(\s|$)/;

/** @type {import('eslint').Rule.RuleModule} */
const disableNeedsReason = {
  meta: {
    type: 'suggestion',
    docs: { description: 'require a reason (`-- why`) on every eslint-disable comment' },
    schema: [],
    messages: { missing: 'Say why on the same line: `eslint-disable... rule -- reason`.' },
  },
  create(context) {
    return {
      Program() {
        for (const comment of context.sourceCode.getAllComments()) {
          const m = DIRECTIVE.exec(comment.value);
          if (!m || m[1] === 'enable') continue;
          const reason = comment.value.split(/\s--\s/)[1];
          if (!reason || reason.trim().length < 3) context.report({ loc: comment.loc, messageId: 'missing' });
        }
      },
    };
  },
};

// The raw timers only the clock module arms (src/core/clock.ts).
const RAW_TIMERS = new Set(['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval']);
const GLOBAL_OBJECTS = new Set(['globalThis', 'global', 'window']);

/** @type {import('eslint').Rule.RuleModule} */
const noRawTimers = {
  meta: {
    type: 'problem',
    docs: { description: 'read the time and wait only through an injected Clock (src/core/clock.ts)' },
    schema: [],
    messages: {
      raw: '`{{name}}` outside the clock: read the time and wait through an injected Clock (src/core/clock.ts).',
    },
  },
  create(context) {
    const report = (node, name) => context.report({ node, messageId: 'raw', data: { name } });
    return {
      // setTimeout & co. as globals: called, passed on or aliased.
      'Program:exit'(program) {
        const scope = context.sourceCode.getScope(program);
        const refs = [...scope.through];
        for (const name of RAW_TIMERS) refs.push(...(scope.set.get(name)?.references ?? []));
        for (const ref of refs) if (RAW_TIMERS.has(ref.identifier.name)) report(ref.identifier, ref.identifier.name);
      },
      MemberExpression(node) {
        if (node.computed || node.object.type !== 'Identifier' || node.property.type !== 'Identifier') return;
        if (node.object.name === 'Date' && node.property.name === 'now') report(node, 'Date.now');
        else if (GLOBAL_OBJECTS.has(node.object.name) && RAW_TIMERS.has(node.property.name))
          report(node, `${node.object.name}.${node.property.name}`);
      },
      NewExpression(node) {
        if (node.callee.type === 'Identifier' && node.callee.name === 'Date' && node.arguments.length === 0)
          report(node, 'new Date()');
      },
    };
  },
};

// The runtime globals our files use (no `globals` package needed for this short list).
const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'queueMicrotask',
    'structuredClone',
    'fetch',
    'AbortController',
    'AbortSignal',
    'TextEncoder',
    'TextDecoder',
    'performance',
    'global',
    'globalThis',
    '__dirname',
    '__filename',
    'require',
    'module',
    'exports',
    'Headers',
    'Request',
    'Response',
    'ReadableStream',
    'WritableStream',
    'TransformStream',
    'EventTarget',
    'Event',
    'DOMException',
  ].map((name) => [name, 'readonly']),
);
// The editor suite drives the workbench DOM through a browser harness.
const browserGlobals = Object.fromEntries(
  ['window', 'document', 'HTMLElement', 'Element', 'KeyboardEvent', 'MouseEvent', 'navigator'].map((n) => [
    n,
    'readonly',
  ]),
);

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'out/**',
      '.cache/**',
      'test-results/**',
      '.bench/**',
      '**/*.d.ts',
      'test/editor/workspace/**',
      'test/editor/untrusted-workspace/**',
      'scripts/demo-workspace/**',
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: {
      'session-ops': {
        rules: {
          'disable-needs-reason': disableNeedsReason,
          'no-raw-timers': noRawTimers,
          'no-dialect-comparison': noDialectComparison,
          'no-folder-listing': noFolderListing,
          'guarded-prompt-issuer': guardedPromptIssuer,
          'no-type-cycle': noTypeCycle,
        },
      },
    },
    rules: { 'session-ops/disable-needs-reason': 'error' },
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,mjs,js,cjs}'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: { ...nodeGlobals, __SESSION_OPS_VERSION__: 'readonly' },
    },
    rules: {
      // Unused names are errors, except the deliberate `_name` placeholders.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Control characters in our regular expressions are deliberate: the sanitizers that strip them
      // from prompts, reports and terminal output.
      'no-control-regex': 'off',
    },
  },
  // One clock (src/core/clock.ts): outside it, time is read and waited on only through an injected
  // Clock. Tests, benches and scripts may use the real timers; so may the web page (src/web), which
  // runs in the browser, not on the Node processes' clock.
  {
    files: ['src/**/*.ts', 'server/**/*.ts'],
    ignores: ['src/core/clock.ts', 'src/web/**'],
    rules: { 'session-ops/no-raw-timers': 'error' },
  },
  // No `vscode` below the hosts (src/core, src/language, src/shared, server/), and the core and
  // the language features never import a host (src/extension, src/cli, src/web, server/).
  {
    files: ['src/core/**/*.ts', 'src/language/**/*.ts', 'src/shared/**/*.ts', 'server/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vscode', message: 'No vscode below the hosts: only src/extension imports it.' }] },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/language/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'No vscode below the hosts: only src/extension imports it.' }],
          patterns: [
            {
              group: ['**/extension/*', '**/cli/*', '**/web/*', '**/server/*', '**/extension', '**/cli', '**/web'],
              message: 'The core never imports a host (src/extension, src/cli, src/web, server/).',
            },
          ],
        },
      ],
    },
  },
  // Layering (issue 30 item 5): each room imports only the rooms on its row of ARCHITECTURE.md's
  // table (eslint/layers.mjs), and no module of src/ or server/ is part of an import cycle. The
  // node resolver (no TypeScript program) keeps it fast: every import here is relative or a package.
  {
    files: ['src/**/*.ts', 'server/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.mjs', '.js'],
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.mjs', '.js', '.json'] })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // import-x/no-cycle skips type imports: the cycles through one are this local rule's.
      'session-ops/no-type-cycle': 'error',
      'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: layerZones() }],
    },
  },
  // Rules the import table cannot say (they replace the regexes of the former unit test test/unit/core/layers.test.ts):
  // dialects are compared only in the backend, folders listed only in src/language/fs, and only
  // the send guard issues a guarded prompt.
  {
    files: ['src/**/*.ts', 'server/**/*.ts'],
    ignores: ['src/core/backend/**'],
    rules: { 'session-ops/no-dialect-comparison': 'error' },
  },
  {
    files: ['src/**/*.ts', 'server/**/*.ts'],
    ignores: ['src/language/fs/**'],
    rules: { 'session-ops/no-folder-listing': 'error' },
  },
  {
    files: ['src/**/*.ts', 'server/**/*.ts'],
    ignores: ['src/core/actions/guard.ts', 'src/core/backend/guarded-prompt.ts'],
    rules: { 'session-ops/guarded-prompt-issuer': 'error' },
  },
  // Small files with one job: at most MAX_LINES lines of code (blank lines and comments not counted).
  // The few files over it when the limit came may not grow past their own ceiling
  // (eslint/file-length.mjs); split them when they are next changed.
  {
    files: ['**/*.{ts,mjs,js,cjs}'],
    rules: { 'max-lines': ['error', { max: MAX_LINES, skipBlankLines: true, skipComments: true }] },
  },
  ...Object.entries(FILE_LENGTH_EXCEPTIONS).map(([file, max]) => ({
    files: [file],
    rules: { 'max-lines': ['error', { max, skipBlankLines: true, skipComments: true }] },
  })),
  {
    files: ['test/editor/**/*.{ts,mjs}', 'bench/**/*.{ts,mjs}', 'scripts/**/*.mjs'],
    languageOptions: { globals: browserGlobals },
  },
  // The web page (src/web) renders server text as text only: no markup sinks at all.
  {
    files: ['src/web/**/*.ts'],
    languageOptions: { globals: browserGlobals },
    rules: {
      'no-restricted-properties': [
        'error',
        ...['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'write', 'writeln', 'createContextualFragment'].map(
          (property) => ({
            property,
            message: 'Server text is shown with textContent (src/web/dom.ts), never as markup.',
          }),
        ),
      ],
      'no-restricted-globals': ['error', { name: 'eval', message: 'No eval: the CSP forbids it.' }],
    },
  },
);

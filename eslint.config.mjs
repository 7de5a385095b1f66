// ESLint flat config: @eslint/js recommended + typescript-eslint recommended (syntax only, no
// type information: the whole tree lints in seconds on 2 cores). Zero warnings (`npm run lint`
// passes --max-warnings 0); it runs in `npm test`'s lint layer, right after the build.
//
// Every `eslint-disable*` comment must say why on the same line (`// eslint-disable-line rule -- why`):
// enforced by the local rule `session-ops/disable-needs-reason` below; disables that no longer
// suppress anything are errors (`reportUnusedDisableDirectives`).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    plugins: { 'session-ops': { rules: { 'disable-needs-reason': disableNeedsReason } } },
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

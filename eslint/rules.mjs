import fs from 'node:fs';
import path from 'node:path';

// Local lint rules that hold the layering rules no import rule can say (issue 30 item 5: they
// replace the regular expressions of the former unit test test/unit/core/layers.test.ts). Each has
// a rule test with a violating fixture in test/unit/lint/layering.test.ts.

const DIALECT_NAMES = new Set(['spec', 'opencode']);
const EQUALITY = new Set(['===', '!==', '==', '!=']);

/** The expression under `x!`, `x as T`, `x satisfies T`, `(x?.y)`. */
function unwrap(node) {
  let n = node;
  while (
    n &&
    (n.type === 'ChainExpression' ||
      n.type === 'TSNonNullExpression' ||
      n.type === 'TSAsExpression' ||
      n.type === 'TSSatisfiesExpression')
  )
    n = n.expression;
  return n;
}

/** 'spec', "opencode", `spec` (a template without expressions). */
function dialectName(node) {
  const n = unwrap(node);
  if (n?.type === 'Literal' && typeof n.value === 'string' && DIALECT_NAMES.has(n.value)) return n.value;
  if (n?.type === 'TemplateLiteral' && n.expressions.length === 0) {
    const text = n.quasis[0]?.value.cooked;
    if (DIALECT_NAMES.has(text)) return text;
  }
  return null;
}

/** `dialect`, `x.dialect`, `x?.dialect`, `x['dialect']`. */
function isDialectValue(node) {
  const n = unwrap(node);
  if (n?.type === 'Identifier') return n.name === 'dialect';
  if (n?.type === 'MemberExpression')
    return n.computed
      ? n.property.type === 'Literal' && n.property.value === 'dialect'
      : n.property.type === 'Identifier' && n.property.name === 'dialect';
  return false;
}

/**
 * No dialect name compared outside src/core/backend: callers ask the adapter's capabilities or its
 * display name instead (the dialects live in src/core/backend/dialects).
 * @type {import('eslint').Rule.RuleModule}
 */
export const noDialectComparison = {
  meta: {
    type: 'problem',
    docs: { description: 'compare dialects only inside src/core/backend (ask the adapter its capabilities)' },
    schema: [],
    messages: {
      compared:
        'A dialect compared outside src/core/backend: ask the dialect adapter its capabilities or display name (src/core/backend/dialects).',
    },
  },
  create(context) {
    const report = (node) => context.report({ node, messageId: 'compared' });
    return {
      BinaryExpression(node) {
        if (!EQUALITY.has(node.operator)) return;
        for (const side of [node.left, node.right]) if (dialectName(side) || isDialectValue(side)) return report(node);
      },
      SwitchStatement(node) {
        if (isDialectValue(node.discriminant)) return report(node.discriminant);
        for (const c of node.cases) if (c.test && dialectName(c.test)) report(c.test);
      },
    };
  },
};

const LISTING = new Set(['readdir', 'readdirSync', 'opendir', 'opendirSync']);

/**
 * Folders are listed only in src/language/fs (the bounded walk and the page-folder reader): a
 * listing elsewhere would have no bound on its entries.
 * @type {import('eslint').Rule.RuleModule}
 */
export const noFolderListing = {
  meta: {
    type: 'problem',
    docs: { description: 'list folders only through src/language/fs (bounded walks)' },
    schema: [],
    messages: {
      listed: '`{{name}}` outside src/language/fs: list folders through its bounded walk (walk.ts, readFolder.ts).',
    },
  },
  create(context) {
    const report = (node, name) => context.report({ node, messageId: 'listed', data: { name } });
    return {
      CallExpression(node) {
        const callee = unwrap(node.callee);
        if (callee?.type === 'Identifier' && LISTING.has(callee.name)) report(node, callee.name);
        else if (
          callee?.type === 'MemberExpression' &&
          !callee.computed &&
          callee.property.type === 'Identifier' &&
          LISTING.has(callee.property.name)
        )
          report(node, callee.property.name);
      },
      ImportSpecifier(node) {
        const name = node.imported.type === 'Identifier' ? node.imported.name : node.imported.value;
        if (LISTING.has(name)) report(node, name);
      },
    };
  },
};

/**
 * Only the send guard (src/core/actions/guard.ts) issues a guarded prompt: the brand of
 * src/core/backend/guarded-prompt.ts means "passed the guard".
 * @type {import('eslint').Rule.RuleModule}
 */
export const guardedPromptIssuer = {
  meta: {
    type: 'problem',
    docs: { description: 'only the send guard issues a guarded prompt' },
    schema: [],
    messages: {
      issued: 'Only the send guard (src/core/actions/guard.ts) issues a guarded prompt: send through guardPrompt.',
    },
  },
  create(context) {
    const seen = new Set();
    return {
      Identifier(node) {
        // `import { issueGuardedPrompt }` holds the name twice (imported and local): one report.
        if (node.name !== 'issueGuardedPrompt' || seen.has(node.range[0])) return;
        seen.add(node.range[0]);
        context.report({ node, messageId: 'issued' });
      },
    };
  },
};

// --- Import cycles through a type-only import -------------------------------------------------
// import-x/no-cycle follows value imports only (a type import is erased at build time), yet a
// cycle of types still ties two modules together: this rule finds the cycles that pass through at
// least one `import type` (the others are import-x/no-cycle's). The files a module imports are
// read from disk with a line-anchored scan of its import and export-from statements (cached by
// modification time); the linted file's own imports come from its syntax tree.

const STATEMENT =
  /^[ \t]*(import|export)\s+(type\s+)?((?:[\w$]+\s*,\s*)?(?:\{[^}]*\}|\*(?:\s+as\s+[\w$]+)?|[\w$]+))\s*from\s*['"](\.{1,2}\/[^'"]*)['"]/gm;
const graphCache = new Map();

function resolveFile(from, spec) {
  const base = path.resolve(path.dirname(from), spec);
  for (const candidate of [base, `${base}.ts`, path.join(base, 'index.ts')])
    if (candidate.endsWith('.ts') && fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  return null;
}

/** `{ type A, type B }`: every specifier a type. */
function onlyTypes(clause) {
  const braces = /^\{([^}]*)\}$/.exec(clause.trim());
  if (!braces) return false;
  const names = braces[1]
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((n) => n.startsWith('type '));
}

function edgesOnDisk(file) {
  let mtime;
  try {
    mtime = fs.statSync(file).mtimeMs;
  } catch {
    return [];
  }
  const cached = graphCache.get(file);
  if (cached && cached.mtime === mtime) return cached.edges;
  const edges = [];
  for (const m of fs.readFileSync(file, 'utf8').matchAll(STATEMENT)) {
    const target = resolveFile(file, m[4]);
    if (target) edges.push({ target, typeOnly: Boolean(m[2]) || onlyTypes(m[3]) });
  }
  graphCache.set(file, { mtime, edges });
  return edges;
}

/** @type {import('eslint').Rule.RuleModule} */
export const noTypeCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'no import cycle, type-only imports included' },
    schema: [],
    messages: {
      cycle:
        'Import cycle through a type-only import: {{path}}. Move the shared type down into a module both can import.',
    },
  },
  create(context) {
    const self = context.physicalFilename;
    const rel = (f) => path.relative(path.dirname(self), f) || path.basename(f);
    /** The files from `start` back to this one, when a path has a type-only step (or `typed` already). */
    function pathBack(start, typed) {
      const seen = new Set();
      const walk = (file, trail, anyType) => {
        if (file === self) return anyType ? trail : null;
        const key = `${anyType}:${file}`;
        if (seen.has(key)) return null;
        seen.add(key);
        for (const e of edgesOnDisk(file)) {
          const found = walk(e.target, [...trail, e.target], anyType || e.typeOnly);
          if (found) return found;
        }
        return null;
      };
      return walk(start, [start], typed);
    }
    const check = (node) => {
      if (!node.source || typeof node.source.value !== 'string' || !node.source.value.startsWith('.')) return;
      const target = resolveFile(self, node.source.value);
      if (!target || target === self) return;
      const typeOnly =
        node.importKind === 'type' ||
        node.exportKind === 'type' ||
        (node.type === 'ImportDeclaration' &&
          node.specifiers.length > 0 &&
          node.specifiers.every((s) => s.importKind === 'type'));
      // A cycle of value imports only is import-x/no-cycle's.
      const back = pathBack(target, typeOnly);
      if (back) context.report({ node, messageId: 'cycle', data: { path: [self, ...back].map(rel).join(' -> ') } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

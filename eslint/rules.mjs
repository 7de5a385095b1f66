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

// Parses one text (a chunk or a whole document) into an RNode tree: the fast parser first, the
// `yaml` library (its CST/AST ranges) when the text is outside the fast subset. Syntax errors come
// from `yaml`, placed on their own line (never running to the end of the file). Pure.
import { isAlias, isNode, parseDocument, visit, type YAMLError } from 'yaml';
import { BAIL, fastParse } from './fastParse';
import { lineEndAt } from './lines';
import { fromYaml, type RNode } from './rnode';
import type { RelDiag } from './types';

export interface ParsedText {
  /** Root node; null for an empty document. */
  root: RNode | null;
  /** YAML syntax errors and warnings (offsets relative to the text). */
  syntax: RelDiag[];
  /** True when the text uses anchors or aliases (which may point across chunks). */
  anchors: boolean;
  /** True when the fast parser handled it. */
  fast: boolean;
}

export function parseText(text: string): ParsedText {
  const f = fastParse(text);
  if (f !== BAIL) return { root: f, syntax: [], anchors: false, fast: true };
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false, keepSourceTokens: false });
  const syntax: RelDiag[] = [];
  for (const e of doc.errors) syntax.push(syntaxDiag(text, e, 'error'));
  for (const w of doc.warnings) syntax.push(syntaxDiag(text, w, 'warning'));
  let anchors = false;
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node) || (isNode(node) && (node as { anchor?: string }).anchor)) {
        anchors = true;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  const root = doc.contents ? fromYaml(doc.contents, doc, text) : null;
  return { root, syntax, anchors, fast: false };
}

function syntaxDiag(text: string, e: YAMLError, severity: 'error' | 'warning'): RelDiag {
  const start = Math.min(Math.max(0, e.pos[0]), text.length);
  const lineEnd = lineEndAt(text, start);
  let end = Math.min(Math.max(start, e.pos[1]), lineEnd);
  if (end === start && start < lineEnd) end = start + 1;
  let message = e.message.split('\n')[0].trim();
  if (!/[.!?]$/.test(message)) message += '.';
  return {
    start,
    end,
    severity,
    code: severity === 'error' ? 'yaml.syntax' : 'yaml.warning',
    message: `YAML ${severity === 'error' ? 'syntax error' : 'warning'}: ${message}`,
    rule: `yaml:${e.code}`,
  };
}

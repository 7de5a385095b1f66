// Parses one text (a chunk or a whole document) into an RNode tree: the fast parser first, the
// `yaml` library (its CST/AST ranges) when the text is outside the fast subset. Syntax errors come
// from `yaml`, placed on their own line (never running to the end of the file). Pure.
import { isAlias, isNode, parseDocument, visit, type YAMLError } from 'yaml';
import { BAIL, fastParse } from './fastParse';
import { fastParseSteps } from './fastSteps';
import { tooDeepAt, tooDeepSteps, MAX_DIAGNOSTICS, MAX_NESTING } from './limits';
import { computeLineStarts, lineEndAt, lineOf, lineStartAt, normalizeLineEnds } from './lines';
import { parsePieces, YAML_PIECE_MAX } from './pieces';
import { fromYaml, MAX_ALIAS_EXPANSION, type AliasIssue } from './rnode';
import type { ParsedText } from './parsed-text';
import type { RelDiag } from './types';

/**
 * parseText for a text of any size: one larger than YAML_PIECE_MAX is read by the fast parser range
 * by range (fastSteps.ts), or, when it is outside the fast subset, parsed by `yaml` entry by entry
 * (pieces.ts), with yields between them.
 */
export function* parseTextSteps(input: string): Generator<void, ParsedText, void> {
  if (input.length <= YAML_PIECE_MAX) return parseText(input);
  const text = normalizeLineEnds(input);
  const deep = yield* tooDeepSteps(text);
  if (deep >= 0) return { root: null, syntax: [tooDeepDiag(text, deep)], anchors: false, fast: false };
  yield;
  const f = yield* fastParseSteps(text);
  if (f !== BAIL) return { root: f, syntax: NO_DIAGNOSTICS, anchors: false, fast: true };
  yield;
  return yield* parsePieces(text, parseText);
}

/** The syntax diagnostics of a text the fast parser read: none (one array shared by every such text). */
const NO_DIAGNOSTICS: readonly RelDiag[] = Object.freeze([]);

export function parseText(input: string): ParsedText {
  const text = normalizeLineEnds(input);
  const deep = tooDeepAt(text);
  if (deep >= 0) return { root: null, syntax: [tooDeepDiag(text, deep)], anchors: false, fast: false };
  const f = fastParse(text);
  if (f !== BAIL) return { root: f, syntax: NO_DIAGNOSTICS, anchors: false, fast: true };
  const doc = parseDocument(text, { uniqueKeys: false, prettyErrors: false, keepSourceTokens: false });
  const syntax: RelDiag[] = [];
  const lines = new Set<number>();
  // one diagnostic per problem: yaml may report several errors for one bad line
  // a line already reported is skipped before any work (hostile input gives yaml 100,000s of errors)
  const starts = doc.errors.length > 1 ? computeLineStarts(text) : [0];
  const errLines = new Set<number>();
  for (const e of doc.errors) {
    const at = lineOf(starts, Math.min(Math.max(0, e.pos[0]), text.length));
    if (errLines.has(at)) continue;
    errLines.add(at);
    const d = syntaxDiag(text, e, 'error');
    const line = lineStartAt(text, d.start);
    if (lines.has(line)) continue;
    lines.add(line);
    syntax.push(d);
    if (syntax.length > MAX_DIAGNOSTICS) break;
    // what follows an unclosed flow collection or quote is read wrongly: those errors are noise
    if (/Unclosed flow|Missing closing/.test(d.message)) break;
  }
  for (const w of doc.warnings.slice(0, MAX_DIAGNOSTICS)) syntax.push(syntaxDiag(text, w, 'warning'));
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
  const issues: AliasIssue[] = [];
  const root = doc.contents ? fromYaml(doc.contents, doc, text, issues) : null;
  for (const i of issues) syntax.push(aliasDiag(i));
  return { root, syntax, anchors, fast: false };
}

/** Deep nesting is reported, never parsed (the parsers recurse): from the place it crosses the limit to the end of its line. */
function tooDeepDiag(text: string, at: number): RelDiag {
  const end = Math.max(at + 1, lineEndAt(text, at));
  return {
    start: at,
    end: Math.min(end, text.length),
    severity: 'error',
    code: 'yaml.syntax',
    message: `YAML syntax error: Nesting deeper than ${MAX_NESTING} levels is not checked.`,
    rule: 'yaml:NESTING_LIMIT',
  };
}

function aliasDiag(i: AliasIssue): RelDiag {
  const message =
    i.kind === 'unresolved'
      ? `Unresolved alias *${i.name}: no anchor &${i.name} is set before it.`
      : i.kind === 'cycle'
        ? `Alias *${i.name} sits inside its own anchor (a cycle): it is not checked.`
        : `Aliases expanding to more than ${MAX_ALIAS_EXPANSION.toLocaleString('en-US')} nodes are not checked (*${i.name} and after).`;
  return {
    start: i.start,
    end: i.end,
    severity: 'error',
    code: 'yaml.syntax',
    message: `YAML syntax error: ${message}`,
    rule: `yaml:ALIAS_${i.kind.toUpperCase()}`,
  };
}

/** The offset of the unmatched opening `open` before `pos`, or -1. */
function unmatchedOpen(text: string, pos: number, open: string, close: string): number {
  let q: string | undefined;
  // scan forward from the start of the block (a few thousand characters back at most)
  const from = Math.max(0, pos - 20000);
  const stack: number[] = [];
  for (let i = from; i < pos; i++) {
    const c = text[i];
    if (q) {
      if (c === q) q = undefined;
      else if (c === '\n') q = undefined;
    } else if (c === '#' && (i === 0 || /\s/.test(text[i - 1]))) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? pos : nl;
    } else if ((c === '"' || c === "'") && (i === 0 || /[\s[{,:]/.test(text[i - 1]))) q = c;
    else if (c === open) stack.push(i);
    else if (c === close) stack.pop();
  }
  return stack.length ? stack[stack.length - 1] : -1;
}

function contentEnd(text: string, from: number): number {
  let e = lineEndAt(text, from);
  while (e > from && /\s/.test(text[e - 1])) e--;
  return e;
}

function syntaxDiag(text: string, e: YAMLError, severity: 'error' | 'warning'): RelDiag {
  let start = Math.min(Math.max(0, e.pos[0]), text.length);
  let end = Math.min(Math.max(start, e.pos[1]), lineEndAt(text, start));
  let message = e.message.split('\n')[0].trim();
  const ls = lineStartAt(text, start);
  if (e.code === 'MISSING_CHAR' && /quote/.test(message)) {
    // point at the opening quote, not at the end of the file
    const q = message.includes('"') ? '"' : "'";
    const open = text.lastIndexOf(q, start - 1);
    if (open >= 0) {
      start = open;
      end = contentEnd(text, open);
      message = `Missing closing ${q === '"' ? 'double' : 'single'} quote: a quoted string must end on this line or continue on indented lines`;
    }
  } else if (/^Flow (sequence|map)/.test(message)) {
    const seq = message.startsWith('Flow sequence');
    const open = unmatchedOpen(text, start, seq ? '[' : '{', seq ? ']' : '}');
    if (open >= 0) {
      start = open;
      end = contentEnd(text, open);
      message = `Unclosed flow ${seq ? 'sequence: expected ]' : 'mapping: expected }'}; its continuation lines must be indented more than the key`;
    }
  } else if (e.code === 'MULTIPLE_DOCS') {
    end = contentEnd(text, start);
    message = 'A routing table is a single YAML document: remove the document separator and what follows';
  } else if (/^\s*$/.test(text.slice(ls, start)) && e.code !== 'TAB_AS_INDENT') {
    // reported in (or at the start of) the indentation: show the line's content
    let i = start;
    while (i < text.length && (text[i] === ' ' || text[i] === '\t')) i++;
    start = i;
    end = contentEnd(text, i);
  }
  if (end <= start + 1 && start < text.length && /[^\s,[\]{}:#]/.test(text[start])) {
    // a one-character range: widen it to the token
    let i = start;
    while (i < text.length && /[^\s,[\]{}#]/.test(text[i]) && !(text[i] === ':' && /\s/.test(text[i + 1] ?? ' '))) i++;
    end = Math.max(end, i);
  }
  const lineEnd = lineEndAt(text, start);
  if (end > lineEnd) end = lineEnd;
  if (end === start && start < lineEnd) end = start + 1;
  message = message.charAt(0).toUpperCase() + message.slice(1);
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

// Parses a page and runs its kind's rules: one pass gives both the model and the diagnostics.

import type { Diagnostic } from '../../core/diagnostics';
import { joinKey } from '../../core/keys';
import { pageKindOf, type PageKind } from './kinds';
import { diag, PageCodes } from './diag';
import { parseMarkdown, type ParsedDoc } from './markdown';
import type { PageModel } from './model';
import { analyze01 } from './source-overview';
import { analyze02 } from './public-api';
import { analyze03 } from './data-model';
import { analyze04 } from './business-logic';
import { analyze05 } from './error-handling';
import { analyze10 } from './fidelity-baseline';

export interface PageCheck {
  model: PageModel;
  diagnostics: Diagnostic[];
}

// Parsing a large page costs real time (micromark with GFM: roughly 0.3 s for a 1000-row
// inventory), and hover, symbols and the cross-page checks ask for the same text again: the last
// few results are kept. Models and diagnostic objects are shared between callers: do not mutate them.
const CACHE_SIZE = 24;
const cache = new Map<string, { text: string; check: PageCheck }>();

/** Model and single-page diagnostics of a page; null when the path is not a page and no kind is given. */
export function checkPage(
  text: string,
  filePath: string,
  kind: PageKind | null = pageKindOf(filePath),
): PageCheck | null {
  if (!kind) return null;
  const key = joinKey(kind, filePath);
  const hit = cache.get(key);
  if (hit && hit.text === text) {
    cache.delete(key);
    cache.set(key, hit);
    return { model: hit.check.model, diagnostics: [...hit.check.diagnostics] };
  }
  const check = run(text, filePath, kind);
  cache.set(key, { text, check });
  if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return { model: check.model, diagnostics: [...check.diagnostics] };
}

function run(text: string, filePath: string, kind: PageKind): PageCheck {
  const doc = parseMarkdown(text);
  const check = runKind(doc, filePath, kind);
  if (doc.limits.length === 0) return check;
  const limits = doc.limits.map((l) =>
    diag(
      doc.lines.range(l.start, l.end),
      l.kind === 'size' ? 'error' : 'warning',
      l.kind === 'size' ? PageCodes.tooLarge : PageCodes.notChecked,
      l.message,
    ),
  );
  // an oversized page is not parsed: only its limit is reported
  return {
    model: check.model,
    diagnostics: doc.limits.some((l) => l.kind === 'size') ? limits : [...limits, ...check.diagnostics],
  };
}

function runKind(doc: ParsedDoc, filePath: string, kind: PageKind): PageCheck {
  switch (kind) {
    case '01-source-overview':
      return analyze01(doc, filePath);
    case '02-public-api':
      return analyze02(doc, filePath);
    case '03-data-model':
      return analyze03(doc, filePath);
    case '04-business-logic':
      return analyze04(doc, filePath);
    case '05-error-handling':
      return analyze05(doc, filePath);
    case '10-fidelity-baseline':
      return analyze10(doc, filePath);
  }
}

// Parses a page and runs its kind's rules: one pass gives both the model and the diagnostics.

import type { Diagnostic } from '../diagnostics';
import { pageKindOf, type PageKind } from './kinds';
import { parseMarkdown } from './markdown';
import type { PageModel } from './model';
import { analyze01 } from './page01';
import { analyze02 } from './page02';
import { analyze03 } from './page03';
import { analyze04 } from './page04';
import { analyze05 } from './page05';
import { analyze10 } from './page10';

export interface PageCheck {
  model: PageModel;
  diagnostics: Diagnostic[];
}

/** Model and single-page diagnostics of a page; null when the path is not a page and no kind is given. */
export function checkPage(text: string, filePath: string, kind: PageKind | null = pageKindOf(filePath)): PageCheck | null {
  if (!kind) return null;
  const doc = parseMarkdown(text);
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

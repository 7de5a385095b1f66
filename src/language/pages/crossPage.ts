// Cross-page checks of a source-analysis page set (warnings): a page missing from the set, the
// same page twice, error codes of 02 that 05 does not define, FIDs named on other pages that 10
// does not define, source-test paths of 10 that do not exist under the port's source tree.
// Single-page rules are not repeated here (see validatePage / validateAllPages).

import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Diagnostic, Range } from '../../core/diagnostics';
import { checkPage } from './analyze';
import { diag, PageCodes } from './diag';
import { FID_SCAN } from './id-formats';
import { PAGE_KINDS, pageFolderOf, type PageKind } from './kinds';
import { isPlaceholder, LineIndex } from './markdown';
import type { FidelityModel, PageModel, PublicApiModel, ErrorHandlingModel } from './model';

export interface PageSetOptions {
  /**
   * The port's original source tree, to check the source-test column against. A function gets the
   * source-analysis folder and answers for that port. A relative root resolves against the port
   * folder (the parent of `source-analysis`). Unset: source tests are not checked.
   */
  sourceRoot?: string | ((folder: string) => string | undefined);
  /** Defaults to fs.existsSync. */
  fileExists?: (p: string) => boolean;
}

/** A page set grouped by its source-analysis folder. */
export interface PageFolder {
  folder: string;
  /** Pages of the folder by kind; when a kind appears twice the first path (sorted) wins. */
  byKind: Map<PageKind, PageModel>;
  /** All pages of the folder (including duplicates), sorted by path. */
  pages: PageModel[];
}

const ZERO: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

/** Groups pages by folder and analyzes those given as text (a model's filePath must be its key). Non-page paths are skipped. */
export function groupPageSet(pages: ReadonlyMap<string, string | PageModel>): PageFolder[] {
  const folders = new Map<string, PageFolder>();
  const paths = [...pages.keys()].sort();
  for (const p of paths) {
    const entry = pages.get(p) as string | PageModel;
    const model = typeof entry === 'string' ? (checkPage(entry, p)?.model ?? null) : entry;
    if (!model) continue;
    const folder = pageFolderOf(p);
    let f = folders.get(folder);
    if (!f) folders.set(folder, (f = { folder, byKind: new Map(), pages: [] }));
    f.pages.push(model);
    if (!f.byKind.has(model.kind)) f.byKind.set(model.kind, model);
  }
  return [...folders.values()];
}

/** "tests/test_auth.py::test_login" → "tests/test_auth.py"; null when the cell names no path. */
export function sourceTestPath(cell: string): string | null {
  if (isPlaceholder(cell)) return null;
  for (const raw of cell.split(/[\s,;()`'"<>[\]]+/)) {
    let token = raw.split('::')[0].split('#')[0];
    token = token.replace(/:\d+(?::\d+)?$/, '').replace(/[.:]+$/, '');
    if (token.length === 0) continue;
    if (token.includes('/') || /\.[A-Za-z0-9]{1,8}$/.test(token)) return token;
  }
  return null;
}

function resolveRoot(opts: PageSetOptions, folder: string): string | null {
  const root = typeof opts.sourceRoot === 'function' ? opts.sourceRoot(folder) : opts.sourceRoot;
  if (!root) return null;
  return path.isAbsolute(root) ? root : path.resolve(path.dirname(folder), root);
}

function checkFolder(
  f: PageFolder,
  opts: PageSetOptions,
  out: Map<string, Diagnostic[]>,
  folderDiags: Diagnostic[],
): void {
  const add = (filePath: string, d: Diagnostic): void => {
    out.get(filePath)?.push(d);
  };

  for (const kind of PAGE_KINDS) {
    if (!f.byKind.has(kind)) {
      folderDiags.push(
        diag(ZERO, 'warning', PageCodes.missingPage, `The source-analysis set has no ${kind} page.`, { kind }),
      );
    }
  }
  for (const m of f.pages) {
    const first = f.byKind.get(m.kind);
    if (first && first !== m) {
      add(
        m.filePath,
        diag(
          m.title?.range ?? ZERO,
          'warning',
          PageCodes.duplicatePage,
          `This set already has a ${m.kind} page (${first.filePath}); this one is ignored by the cross-page checks.`,
        ),
      );
    }
  }

  // 02's errors column → 05.
  const api = f.byKind.get('02-public-api') as PublicApiModel | undefined;
  const errors = f.byKind.get('05-error-handling') as ErrorHandlingModel | undefined;
  if (api && errors) {
    const known = new Set(errors.errors.map((e) => e.code));
    for (const e of api.endpoints) {
      for (const ref of e.errors) {
        if (!known.has(ref.code)) {
          add(
            api.filePath,
            diag(ref.range, 'warning', PageCodes.unknownErrorCode, `${ref.code} is not defined in 05-error-handling.`, {
              code: ref.code,
            }),
          );
        }
      }
    }
  }

  // FIDs named on other pages → 10; source tests → the source tree.
  const baseline = f.byKind.get('10-fidelity-baseline') as FidelityModel | undefined;
  if (baseline) {
    const fids = new Set(baseline.rows.map((r) => r.fid));
    for (const m of f.pages) {
      if (m.kind === '10-fidelity-baseline') continue;
      const lines = new LineIndex(m.text);
      for (const match of m.text.matchAll(FID_SCAN)) {
        if (fids.has(match[0])) continue;
        const at = match.index ?? 0;
        add(
          m.filePath,
          diag(
            lines.range(at, at + match[0].length),
            'warning',
            PageCodes.unknownFid,
            `${match[0]} is not in the fidelity baseline (10-fidelity-baseline).`,
            { fid: match[0] },
          ),
        );
      }
    }
    const root = resolveRoot(opts, f.folder);
    if (root) {
      const exists = opts.fileExists ?? existsSync;
      for (const row of baseline.rows) {
        const rel = sourceTestPath(row.sourceTest);
        if (!rel) continue;
        const full = path.isAbsolute(rel) ? rel : path.resolve(root, rel);
        if (!exists(full)) {
          add(
            baseline.filePath,
            diag(
              row.sourceTestRange,
              'warning',
              PageCodes.sourceTestNotFound,
              `Source test "${rel}" does not exist under ${root}.`,
              { path: full },
            ),
          );
        }
      }
    }
  }
}

/**
 * Cross-page diagnostics. The result has an entry (possibly empty) for every page path given, so
 * stale diagnostics can be cleared, and one per source-analysis folder (keyed by the folder path)
 * for folder-level diagnostics such as a missing page.
 */
export function validatePageSet(
  pages: ReadonlyMap<string, string | PageModel>,
  opts: PageSetOptions = {},
): Map<string, Diagnostic[]> {
  const out = new Map<string, Diagnostic[]>();
  for (const f of groupPageSet(pages)) {
    for (const m of f.pages) out.set(m.filePath, []);
    const folderDiags: Diagnostic[] = [];
    checkFolder(f, opts, out, folderDiags);
    out.set(f.folder, folderDiags);
  }
  return out;
}

/** Single-page and cross-page diagnostics of a page set, merged per path (plus the folder keys). */
export function validateAllPages(
  pages: ReadonlyMap<string, string>,
  opts: PageSetOptions = {},
): Map<string, Diagnostic[]> {
  const models = new Map<string, PageModel>();
  const out = new Map<string, Diagnostic[]>();
  for (const [p, text] of pages) {
    const check = checkPage(text, p);
    if (!check) continue;
    models.set(p, check.model);
    out.set(p, [...check.diagnostics]);
  }
  for (const [p, diags] of validatePageSet(models, opts)) out.set(p, [...(out.get(p) ?? []), ...diags]);
  return out;
}

// Which source-analysis page a file is. A page is one of six basenames (with `.md`, or no
// extension for wiki pages) whose immediate parent folder is named `source-analysis`.

export type PageKind =
  | '01-source-overview'
  | '02-public-api'
  | '03-data-model'
  | '04-business-logic'
  | '05-error-handling'
  | '10-fidelity-baseline';

/** The six kinds in page order. */
export const PAGE_KINDS: readonly PageKind[] = [
  '01-source-overview',
  '02-public-api',
  '03-data-model',
  '04-business-logic',
  '05-error-handling',
  '10-fidelity-baseline',
];

/** Human titles, for views and messages. */
export const PAGE_TITLES: Readonly<Record<PageKind, string>> = {
  '01-source-overview': 'Source overview',
  '02-public-api': 'Public API',
  '03-data-model': 'Data model',
  '04-business-logic': 'Business logic',
  '05-error-handling': 'Error handling',
  '10-fidelity-baseline': 'Fidelity baseline',
};

export const SOURCE_ANALYSIS_FOLDER = 'source-analysis';

/** Splits a path on both separators (Windows paths and URIs' paths alike). */
function segments(filePath: string): string[] {
  return filePath.split(/[\\/]+/).filter((s) => s.length > 0);
}

/** The page kind of a file path, or null when it is not a source-analysis page. */
export function pageKindOf(filePath: string): PageKind | null {
  const parts = segments(filePath);
  if (parts.length < 2) return null;
  const parent = parts[parts.length - 2];
  if (parent.toLowerCase() !== SOURCE_ANALYSIS_FOLDER) return null;
  let base = parts[parts.length - 1];
  if (/\.md$/i.test(base)) base = base.slice(0, -3);
  else if (base.includes('.')) return null;
  const lower = base.toLowerCase();
  return (PAGE_KINDS as readonly string[]).includes(lower) ? (lower as PageKind) : null;
}

/** The folder holding a page (the `source-analysis` folder), with the path's own separators. */
export function pageFolderOf(filePath: string): string {
  const cut = Math.max(filePath.lastIndexOf('/'), filePath.lastIndexOf('\\'));
  return cut < 0 ? '' : filePath.slice(0, cut);
}

// Identifier formats of the source-analysis pages.

/** FID-<nnn>: exactly three digits. */
export const FID_RE = /^FID-\d{3}$/;
/** RULE-<nn>: two digits or more. */
export const RULE_RE = /^RULE-\d{2,}$/;
/** <PREFIX>_<NNN>: uppercase prefix (letters, digits, inner underscores), underscore, three digits. */
export const ERROR_CODE_RE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_\d{3}$/;

/** Error codes inside running text (the errors cell of 02, assertions...). */
export const ERROR_CODE_SCAN = /(?<![A-Za-z0-9_])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_\d{3}(?![A-Za-z0-9_])/g;
/** FIDs inside running text. */
export const FID_SCAN = /(?<![A-Za-z0-9_-])FID-\d{3}(?![A-Za-z0-9_])/g;

/** Anything that looks like one of the three ids (for hover). */
export const ANY_ID_SCAN =
  /(?<![A-Za-z0-9_-])(?:FID-\d+|RULE-\d+|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_\d{3})(?![A-Za-z0-9_])/g;

export type IdKind = 'fid' | 'rule' | 'error-code';

export function idKindOf(token: string): IdKind | null {
  if (/^FID-\d+$/.test(token)) return 'fid';
  if (/^RULE-\d+$/.test(token)) return 'rule';
  if (ERROR_CODE_RE.test(token)) return 'error-code';
  return null;
}

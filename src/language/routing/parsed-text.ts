// What parsing a routing text gives (parse.ts whole, pieces.ts entry by entry): its own module so
// that the two parsers share it without importing each other.
import type { RNode } from './rnode';
import type { RelDiag } from './types';

export interface ParsedText {
  /** Root node; null for an empty document. */
  root: RNode | null;
  /** YAML syntax errors and warnings (offsets relative to the text). */
  syntax: readonly RelDiag[];
  /** True when the text uses anchors or aliases (which may point across chunks). */
  anchors: boolean;
  /** True when the fast parser handled it. */
  fast: boolean;
  /** Parsed entry by entry (pieces.ts): YAML syntax only, no tree. */
  pieces?: boolean;
}

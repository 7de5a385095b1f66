// The runtime table of dialects: one adapter each. A new dialect is one file beside these, one row
// here and one rule in ./detect.ts.
import type { Dialect } from '../../model';
import type { DialectAdapter } from './adapter';
import { opencodeDialect } from './opencode';
import { specDialect } from './spec';

export type { DialectAdapter } from './adapter';

export const DIALECTS: Readonly<Record<Dialect, DialectAdapter>> = Object.freeze({
  spec: specDialect,
  opencode: opencodeDialect,
});

/** What a view shows for a backend of this dialect (null: not known yet). */
export function dialectDisplayName(dialect: Dialect | null): string | null {
  return dialect === null ? null : DIALECTS[dialect].displayName;
}

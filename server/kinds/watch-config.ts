// The `session-ops watch` configuration document kind (session-ops.yaml, *.session-ops.yaml): the
// same checks `watch` runs at start (src/core/watch/config), underlined where they apply. The
// short-spacing rule is a warning here (the file may be meant for `watch --allow-short-spacing`).
import type { Diagnostic, Position } from '../../src/core/diagnostics';
import { CONFIG_SOURCE, isWatchConfigFileName, parseWatchConfig } from '../../src/core/watch/config';
import type { DocumentKind } from './types';

function positionAt(text: string, offset: number): Position {
  const at = Math.max(0, Math.min(offset, text.length));
  const before = text.slice(0, at);
  const line = (before.match(/\n/g) ?? []).length;
  return { line, character: at - (before.lastIndexOf('\n') + 1) };
}

export function watchConfigDiagnostics(text: string): Diagnostic[] {
  return parseWatchConfig(text).problems.map((p) => ({
    range: { start: positionAt(text, p.start), end: positionAt(text, Math.max(p.start, p.end)) },
    severity: p.severity,
    code: p.code,
    message: p.message,
    source: CONFIG_SOURCE,
  }));
}

export const watchConfigKind: DocumentKind = {
  id: 'watch-config',
  title: 'session-ops watch configuration',
  source: CONFIG_SOURCE,
  claims: (filePath) => isWatchConfigFileName(filePath),
  candidate: (filePath) => isWatchConfigFileName(filePath),
  open: () => ({ validate: (text: string) => watchConfigDiagnostics(text) }),
};

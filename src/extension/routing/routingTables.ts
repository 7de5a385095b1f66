// Reads a routing table for the editor's routing commands: the open document's text when it is
// open (unsaved edits count), else the file, refused past sessionOps.maxDocumentMB. A table with
// an error diagnostic resolves nothing: the error names its first problems.
import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { validateRouting } from '../../language/routing/analyzer';
import { parseText } from '../../language/routing/parse';
import type { Configuration } from '../configuration';

export interface RoutingTable {
  uri: vscode.Uri;
  /** The table's value, validated. */
  table: Record<string, unknown>;
}

async function readText(uri: vscode.Uri, maxBytes: number): Promise<string> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return open.getText();
  const stat = await fs.stat(uri.fsPath);
  if (stat.size > maxBytes)
    throw new Error(
      `${uri.fsPath} is ${(stat.size / 1048576).toFixed(1)} MB, over sessionOps.maxDocumentMB: it is not read`,
    );
  return fs.readFile(uri.fsPath, 'utf8');
}

/** The table at `uri`, or the one sessionOps.routingFile names (the first candidate that exists). */
export async function readRoutingTable(configuration: Configuration, uri?: vscode.Uri): Promise<RoutingTable> {
  let at = uri;
  if (!at) {
    const candidates = configuration.routingFileCandidates();
    for (const c of candidates) {
      if (
        await fs.stat(c).then(
          (s) => s.isFile(),
          () => false,
        )
      ) {
        at = vscode.Uri.file(c);
        break;
      }
    }
    if (!at)
      throw new Error(
        candidates.length === 0
          ? 'no workspace folder holds the routing table: open a folder, or set sessionOps.routingFile to an absolute path'
          : `no routing table at ${candidates.join(' or ')} (setting sessionOps.routingFile)`,
      );
  }
  const text = await readText(at, configuration.maxDocumentBytes());
  const errors = validateRouting(text).filter((d) => d.severity === 'error');
  const value = errors.length === 0 ? parseText(text).root?.value : undefined;
  if (errors.length > 0 || typeof value !== 'object' || value === null || Array.isArray(value)) {
    const first = errors
      .slice(0, 3)
      .map((d) => `line ${d.range.start.line + 1}: ${d.message}`)
      .join('; ');
    throw new Error(
      `the routing table ${vscode.workspace.asRelativePath(at)} does not pass validation, so it resolves no route${first ? `: ${first}` : ''}${errors.length > 3 ? ` (and ${errors.length - 3} more)` : ''}`,
    );
  }
  return { uri: at, table: value as Record<string, unknown> };
}

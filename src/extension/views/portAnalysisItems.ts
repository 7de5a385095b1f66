// The tree items of the Port analysis view: a port with its page and problem counts, a page (or a
// missing one), a chunk of the fidelity baseline, a FID, a message.
import * as vscode from 'vscode';
import type { ChunkSummary, FidSummary, WirePageSummary, WirePortFolder } from '../../shared/protocol';

/** A node of the Port analysis tree. */
export type PortNode =
  | { kind: 'port'; key: string; port: WirePortFolder }
  | { kind: 'page'; key: string; port: WirePortFolder; page: WirePageSummary }
  | { kind: 'chunk'; key: string; port: WirePortFolder; chunk: ChunkSummary; uri: string; unchunked: boolean }
  | { kind: 'fid'; key: string; port: WirePortFolder; fid: FidSummary; uri: string }
  | { kind: 'message'; key: string; text: string; error: boolean };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "2 errors, 1 warning", "no problems". */
export function problemText(p: { errors: number; warnings: number; others: number }): string {
  const bits: string[] = [];
  if (p.errors) bits.push(plural(p.errors, 'error'));
  if (p.warnings) bits.push(plural(p.warnings, 'warning'));
  if (p.others) bits.push(plural(p.others, 'info'));
  return bits.length ? bits.join(', ') : 'no problems';
}

export function portAnalysisItem(node: PortNode): vscode.TreeItem {
  switch (node.kind) {
    case 'port':
      return portItem(node.port, node.key);
    case 'page':
      return pageItem(node.port, node.page, node.key);
    case 'chunk': {
      const item = new vscode.TreeItem(node.chunk.name, vscode.TreeItemCollapsibleState.Collapsed);
      item.id = node.key;
      item.iconPath = new vscode.ThemeIcon(node.unchunked ? 'question' : 'package');
      item.description = plural(node.chunk.fids.length, 'FID');
      item.contextValue = 'chunk';
      item.tooltip = node.unchunked
        ? 'FIDs with no chunk, or with several'
        : `Chunk ${node.chunk.name}${node.chunk.declared ? '' : ' (not declared in a Chunks section)'}: its behaviors are ported together`;
      item.accessibilityInformation = { label: `chunk ${node.chunk.name}, ${item.description}` };
      item.command = openAt(node.uri, node.chunk.range, `Open chunk ${node.chunk.name}`);
      return item;
    }
    case 'fid': {
      const f = node.fid;
      const item = new vscode.TreeItem(f.fid, vscode.TreeItemCollapsibleState.None);
      item.id = node.key;
      item.iconPath = new vscode.ThemeIcon('symbol-enum-member');
      item.description = [f.behavior || '(no behavior)', f.type || '(no type)'].join(' · ');
      const tip = new vscode.MarkdownString();
      tip.appendMarkdown(`**${f.fid}** · `).appendText(f.type || 'no type');
      tip.appendMarkdown('\n\n').appendText(f.behavior || '(no behavior)');
      if (f.sourceTest) tip.appendMarkdown('\n\nSource test: ').appendText(f.sourceTest);
      if (f.chunk) tip.appendMarkdown('\n\nChunk: ').appendText(f.chunk);
      item.tooltip = tip;
      item.contextValue = 'fid';
      item.accessibilityInformation = { label: `${f.fid}, ${item.description}` };
      item.command = openAt(node.uri, f.range, `Open ${f.fid}`);
      return item;
    }
    case 'message': {
      const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      item.id = node.key;
      item.iconPath = new vscode.ThemeIcon(node.error ? 'error' : 'info');
      item.command = node.error ? { command: 'sessionOps.refreshPortAnalysis', title: 'Retry' } : undefined;
      return item;
    }
  }
}

function portItem(port: WirePortFolder, key: string): vscode.TreeItem {
  const item = new vscode.TreeItem(port.portName, vscode.TreeItemCollapsibleState.Expanded);
  item.id = key;
  const present = port.pages.filter((p) => p.filePath).length;
  const totals = port.pages.reduce(
    (t, p) => ({ errors: t.errors + p.errors, warnings: t.warnings + p.warnings, others: t.others + p.others }),
    { errors: 0, warnings: 0, others: 0 },
  );
  const missing = port.pages.length - present;
  item.description = [
    missing ? `${present} of ${port.pages.length} pages, ${missing} missing` : `${present} pages`,
    problemText(totals),
  ].join(' · ');
  item.iconPath = new vscode.ThemeIcon(
    totals.errors ? 'error' : missing || totals.warnings ? 'warning' : 'folder',
    totals.errors
      ? new vscode.ThemeColor('errorForeground')
      : missing || totals.warnings
        ? new vscode.ThemeColor('editorWarning.foreground')
        : undefined,
  );
  item.tooltip = new vscode.MarkdownString().appendText(port.folder);
  item.contextValue = 'port';
  item.accessibilityInformation = { label: `port ${port.portName}, ${item.description}` };
  return item;
}

function pageItem(port: WirePortFolder, page: WirePageSummary, key: string): vscode.TreeItem {
  const hasChunks =
    page.kind === '10-fidelity-baseline' &&
    !!port.fidelity &&
    (port.fidelity.chunks.length > 0 || port.fidelity.unchunked.length > 0);
  const item = new vscode.TreeItem(
    page.kind,
    hasChunks ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None,
  );
  item.id = key;
  if (!page.uri) {
    item.description = 'missing';
    item.iconPath = new vscode.ThemeIcon('warning', new vscode.ThemeColor('editorWarning.foreground'));
    item.tooltip = `${page.title}: this port has no ${page.kind} page in ${port.folder}`;
    item.contextValue = 'page missing';
    item.accessibilityInformation = { label: `${page.kind}, missing` };
    return item;
  }
  item.description = problemText(page);
  item.iconPath = page.errors
    ? new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'))
    : page.warnings
      ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('editorWarning.foreground'))
      : new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'));
  const tip = new vscode.MarkdownString();
  tip.appendMarkdown(`**${page.title}** · `).appendText(page.filePath ?? '');
  for (const d of page.diagnostics.slice(0, 10))
    tip.appendMarkdown('\n\n').appendText(`Line ${d.range.start.line + 1}: ${d.message}`);
  if (page.diagnostics.length > 10) tip.appendMarkdown('\n\n').appendText(`… and ${page.diagnostics.length - 10} more`);
  item.tooltip = tip;
  item.contextValue = 'page';
  item.accessibilityInformation = { label: `${page.kind}, ${problemText(page)}` };
  item.command = { command: 'vscode.open', title: `Open ${page.kind}`, arguments: [vscode.Uri.parse(page.uri)] };
  return item;
}

function openAt(
  uri: string,
  range: { start: { line: number; character: number }; end: { line: number; character: number } },
  title: string,
): vscode.Command {
  const selection = new vscode.Range(range.start.line, range.start.character, range.end.line, range.end.character);
  return {
    command: 'vscode.open',
    title,
    arguments: [vscode.Uri.parse(uri), { selection } satisfies vscode.TextDocumentShowOptions],
  };
}

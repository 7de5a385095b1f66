// Conversions from the kinds' results (src/core shapes) to LSP shapes.
import {
  CompletionItemKind,
  DiagnosticSeverity,
  InsertTextFormat,
  InsertTextMode,
  MarkupKind,
  SymbolKind,
} from 'vscode-languageserver/node';
import type {
  CompletionItem,
  Diagnostic as LspDiagnostic,
  DocumentSymbol,
  SymbolInformation,
} from 'vscode-languageserver/node';
import type { Diagnostic } from '../src/core/diagnostics';
import type { CompletionEntry, SymbolEntry } from '../src/language/routing';
import type { ServerSymbol } from './kinds/types';

const SEVERITY: Record<Diagnostic['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export function toLspDiagnostic(d: Diagnostic): LspDiagnostic {
  return {
    range: d.range,
    severity: SEVERITY[d.severity],
    code: d.code,
    source: d.source,
    message: d.message,
    ...(d.data !== undefined ? { data: d.data } : {}),
  };
}

const SYMBOL_KIND: Record<SymbolEntry['kind'], SymbolKind> = {
  namespace: SymbolKind.Namespace,
  class: SymbolKind.Class,
  module: SymbolKind.Module,
  struct: SymbolKind.Struct,
  constant: SymbolKind.Constant,
  object: SymbolKind.Object,
  string: SymbolKind.String,
  array: SymbolKind.Array,
  property: SymbolKind.Property,
};

const symbolKind = (k: ServerSymbol['kind']): SymbolKind =>
  typeof k === 'number' ? (k as SymbolKind) : SYMBOL_KIND[k];

export function toDocumentSymbol(s: ServerSymbol): DocumentSymbol {
  return {
    name: s.name,
    ...(s.detail ? { detail: s.detail } : {}),
    kind: symbolKind(s.kind),
    range: s.range,
    selectionRange: s.selectionRange,
    ...(s.children ? { children: s.children.map(toDocumentSymbol) } : {}),
  };
}

/** Flat symbols (clients without hierarchical document symbols), children named by their container. */
export function toSymbolInformation(
  uri: string,
  list: readonly ServerSymbol[],
  container?: string,
  out: SymbolInformation[] = [],
): SymbolInformation[] {
  for (const s of list) {
    out.push({
      name: s.name,
      kind: symbolKind(s.kind),
      location: { uri, range: s.range },
      ...(container ? { containerName: container } : {}),
    });
    if (s.children) toSymbolInformation(uri, s.children, s.name, out);
  }
  return out;
}

export function toCompletionItem(c: CompletionEntry): CompletionItem {
  return {
    label: c.label,
    kind:
      c.kind === 'property'
        ? CompletionItemKind.Property
        : c.kind === 'route'
          ? CompletionItemKind.Class
          : CompletionItemKind.EnumMember,
    ...(c.detail ? { detail: c.detail } : {}),
    ...(c.documentation ? { documentation: { kind: MarkupKind.Markdown, value: c.documentation } } : {}),
    textEdit: { range: c.range, newText: c.insertText },
    filterText: c.label,
    sortText: c.sortText,
    insertTextFormat: InsertTextFormat.PlainText,
    ...(c.multiline ? { insertTextMode: InsertTextMode.adjustIndentation } : {}),
  };
}

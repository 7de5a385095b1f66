// The Session Ops language server: routing tables (and the other registered document kinds) over
// LSP. Incremental document sync; validation is debounced briefly, runs incrementally (only the
// chunks an edit touched), yields between steps and is abandoned when a newer version arrives.
// It never sends requests to the client (no workspace/configuration), so any LSP editor can run
// it without configuration: settings come in initializationOptions and
// workspace/didChangeConfiguration.
//
// Settings (initializationOptions, or didChangeConfiguration `settings.sessionOps.routing`):
//   extraGlobs: string[]                 more file globs treated as routing tables
//   schemaDiagnostics: auto|always|never  `auto`: when Red Hat's YAML server is present, leave to it
//                                        what it reports too (YAML syntax errors; schema errors where
//                                        it applies our schema: the yamlValidation names and $schema
//                                        pointers) and schema completion/hover there; `always`:
//                                        report everything; `never`: drop those even without it
//   redhatYamlPresent: boolean           is redhat.vscode-yaml installed (also: notification sessionOps/environment)
//   debounceMs: number                   delay after an edit (default 15; 0 on open)
import { fileURLToPath } from 'node:url';
import {
  CodeActionKind,
  CompletionItemKind,
  DiagnosticSeverity,
  InsertTextFormat,
  InsertTextMode,
  MarkupKind,
  SymbolKind,
  TextDocumentSyncKind,
  TextDocuments,
  type CodeAction,
  type CompletionItem,
  type Connection,
  type Diagnostic as LspDiagnostic,
  type DocumentSymbol,
  type InitializeParams,
  type InitializeResult,
  type SymbolInformation,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../src/core/diagnostics';
import { validators, type CompletionEntry, type SymbolEntry } from '../src/core/routing';
import { KindRegistry, registerBuiltinKinds, type DocumentKind, type DocumentSession, type KindSettings } from './documentKinds';
import { RouteKeyIndex } from './workspaceIndex';

export type SchemaDiagnosticsMode = 'auto' | 'always' | 'never';

export interface ServerSettings {
  extraGlobs: string[];
  schemaDiagnostics: SchemaDiagnosticsMode;
  redhatYamlPresent: boolean;
  debounceMs: number;
}

export interface ServerOptions {
  registry?: KindRegistry;
}

interface DocState {
  uri: string;
  path: string;
  kind?: DocumentKind;
  session?: DocumentSession;
  timer?: NodeJS.Timeout;
  running?: Promise<void>;
  /** Our full diagnostics of the last validated version (before filtering). */
  last?: Diagnostic[];
  lastVersion?: number;
  published: boolean;
  closed: boolean;
}

const SLICE_MS = 8;

export function uriToPath(uri: string): string {
  if (uri.startsWith('file:')) {
    try {
      return fileURLToPath(uri);
    } catch {
      return decodeURIComponent(uri.replace(/^file:\/\//, ''));
    }
  }
  return uri;
}

function readSettings(into: ServerSettings, src: unknown): void {
  if (!src || typeof src !== 'object') return;
  const o = src as Record<string, unknown>;
  const nested = (o.sessionOps as Record<string, unknown> | undefined)?.routing ?? o.routing;
  if (nested && typeof nested === 'object') readSettings(into, nested);
  if (Array.isArray(o.extraGlobs)) into.extraGlobs = o.extraGlobs.filter((g): g is string => typeof g === 'string');
  if (o.schemaDiagnostics === 'auto' || o.schemaDiagnostics === 'always' || o.schemaDiagnostics === 'never') into.schemaDiagnostics = o.schemaDiagnostics;
  if (typeof o.redhatYamlPresent === 'boolean') into.redhatYamlPresent = o.redhatYamlPresent;
  if (typeof o.debounceMs === 'number' && o.debounceMs >= 0) into.debounceMs = o.debounceMs;
}

const SEVERITY: Record<Diagnostic['severity'], DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

function toLsp(d: Diagnostic): LspDiagnostic {
  return { range: d.range, severity: SEVERITY[d.severity], code: d.code, source: d.source, message: d.message, ...(d.data !== undefined ? { data: d.data } : {}) };
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

function toDocumentSymbol(s: SymbolEntry): DocumentSymbol {
  return {
    name: s.name,
    ...(s.detail ? { detail: s.detail } : {}),
    kind: SYMBOL_KIND[s.kind],
    range: s.range,
    selectionRange: s.selectionRange,
    ...(s.children ? { children: s.children.map(toDocumentSymbol) } : {}),
  };
}

function flatten(uri: string, list: SymbolEntry[], container: string | undefined, out: SymbolInformation[]): SymbolInformation[] {
  for (const s of list) {
    out.push({ name: s.name, kind: SYMBOL_KIND[s.kind], location: { uri, range: s.range }, ...(container ? { containerName: container } : {}) });
    if (s.children) flatten(uri, s.children, s.name, out);
  }
  return out;
}

function toCompletionItem(c: CompletionEntry): CompletionItem {
  return {
    label: c.label,
    kind: c.kind === 'property' ? CompletionItemKind.Property : c.kind === 'route' ? CompletionItemKind.Class : CompletionItemKind.EnumMember,
    ...(c.detail ? { detail: c.detail } : {}),
    ...(c.documentation ? { documentation: { kind: MarkupKind.Markdown, value: c.documentation } } : {}),
    textEdit: { range: c.range, newText: c.insertText },
    filterText: c.label,
    sortText: c.sortText,
    insertTextFormat: InsertTextFormat.PlainText,
    ...(c.multiline ? { insertTextMode: InsertTextMode.adjustIndentation } : {}),
  };
}

export function startServer(connection: Connection, options: ServerOptions = {}): void {
  const registry = options.registry ?? registerBuiltinKinds();
  const documents = new TextDocuments(TextDocument);
  const states = new Map<string, DocState>();
  const settings: ServerSettings = { extraGlobs: [], schemaDiagnostics: 'auto', redhatYamlPresent: false, debounceMs: 15 };
  let roots: string[] = [];
  let hierarchicalSymbols = true;
  const kindSettings = (): KindSettings => ({ extraGlobs: settings.extraGlobs, roots });
  const routeIndex = new RouteKeyIndex(
    () => roots,
    (p, text) => registry.get('routing')?.claims(p, text, kindSettings()) ?? false,
  );

  // With Red Hat's YAML server present (and schemaDiagnostics "auto"), what it also reports or
  // serves for a file is left to it; "never" drops the same diagnostics even without it.
  const overlapFor = (st: DocState, text: string) => st.kind?.overlapWithYamlServer?.(st.path, text);
  const dropsShared = () => settings.schemaDiagnostics === 'never' || (settings.schemaDiagnostics === 'auto' && settings.redhatYamlPresent);
  const schemaFeaturesFor = (st: DocState, text: string) => !(settings.redhatYamlPresent && settings.schemaDiagnostics !== 'always' && overlapFor(st, text)?.schemaFeatures);

  connection.onInitialize((params: InitializeParams): InitializeResult => {
    readSettings(settings, params.initializationOptions);
    if (params.workspaceFolders && params.workspaceFolders.length) roots = params.workspaceFolders.map((f) => uriToPath(f.uri));
    else if (params.rootUri) roots = [uriToPath(params.rootUri)];
    else if (params.rootPath) roots = [params.rootPath];
    hierarchicalSymbols = params.capabilities.textDocument?.documentSymbol?.hierarchicalDocumentSymbolSupport ?? false;
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        completionProvider: { triggerCharacters: [' ', ':', '[', ',', '-', '/'], resolveProvider: false },
        hoverProvider: true,
        codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
        documentSymbolProvider: { label: 'Session Ops' },
      },
      serverInfo: { name: 'session-ops-language-server', version: typeof __SESSION_OPS_VERSION__ === 'string' ? __SESSION_OPS_VERSION__ : undefined },
    };
  });

  connection.onInitialized(() => {
    // Compile the schema while nothing is waiting for it.
    setImmediate(() => {
      try {
        validators();
      } catch (err) {
        connection.console.error(`routing schema: ${String(err)}`);
      }
    });
  });

  connection.onDidChangeConfiguration((params) => {
    readSettings(settings, params.settings);
    reclassifyAll();
  });

  connection.onNotification('sessionOps/environment', (params: { redhatYamlPresent?: boolean }) => {
    if (typeof params?.redhatYamlPresent === 'boolean') settings.redhatYamlPresent = params.redhatYamlPresent;
    reclassifyAll();
  });

  connection.onRequest('sessionOps/stats', (params: { uri: string }) => {
    const st = states.get(params.uri);
    return { kind: st?.kind?.id ?? null, version: st?.lastVersion ?? null, stats: st?.session?.stats?.() ?? null };
  });

  function reclassifyAll(): void {
    for (const st of states.values()) {
      const doc = documents.get(st.uri);
      if (doc) classify(st, doc.getText(), true);
    }
  }

  /** Decides the document's kind; (re)validates when asked or when the kind changed. */
  function classify(st: DocState, text: string, force: boolean): void {
    const kind = registry.kindFor(st.path, text, kindSettings());
    if (kind !== st.kind) {
      st.kind = kind;
      st.session = kind?.open(st.path);
      st.last = undefined;
      if (!kind) {
        if (st.published) connection.sendDiagnostics({ uri: st.uri, diagnostics: [] });
        st.published = false;
        return;
      }
      schedule(st, 0);
      if (kind.id === 'routing') void routeIndex.ensureScanned();
      return;
    }
    if (force && kind) {
      if (st.last && st.lastVersion !== undefined) publish(st, st.lastVersion);
      else schedule(st, 0);
    }
  }

  function schedule(st: DocState, delay: number): void {
    if (st.timer) clearTimeout(st.timer);
    st.timer = setTimeout(() => {
      st.timer = undefined;
      void validate(st);
    }, delay);
  }

  async function validate(st: DocState): Promise<void> {
    while (st.running) await st.running;
    const doc = documents.get(st.uri);
    const session = st.session;
    if (!doc || !session || st.closed) return;
    const version = doc.version;
    const text = doc.getText();
    const run = (async () => {
      try {
        const r = session.validate(text);
        let diags: Diagnostic[];
        if (Array.isArray(r)) diags = r;
        else {
          let slice = performance.now();
          for (;;) {
            const step = r.next();
            if (step.done) {
              diags = step.value;
              break;
            }
            if (performance.now() - slice > SLICE_MS) {
              await new Promise<void>((resolve) => setImmediate(resolve));
              slice = performance.now();
              const cur = documents.get(st.uri);
              if (!cur || cur.version !== version || st.closed || st.session !== session) return; // a newer version is scheduled
            }
          }
        }
        const cur = documents.get(st.uri);
        if (!cur || cur.version !== version || st.closed || st.session !== session) return;
        st.last = diags;
        st.lastVersion = version;
        publish(st, version);
      } catch (err) {
        connection.console.error(`validation of ${st.uri} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      }
    })();
    st.running = run;
    try {
      await run;
    } finally {
      if (st.running === run) st.running = undefined;
    }
  }

  function publish(st: DocState, version: number): void {
    const kind = st.kind;
    if (!kind || !st.last) return;
    const doc = documents.get(st.uri);
    const overlap = dropsShared() && doc ? overlapFor(st, doc.getText()) : undefined;
    const diags = overlap ? st.last.filter((d) => !overlap.reports(d.code)) : st.last;
    connection.sendDiagnostics({ uri: st.uri, version, diagnostics: diags.map(toLsp) });
    st.published = true;
  }

  documents.onDidChangeContent((e) => {
    const uri = e.document.uri;
    let st = states.get(uri);
    const text = e.document.getText();
    if (!st) {
      st = { uri, path: uriToPath(uri), published: false, closed: false };
      states.set(uri, st);
      classify(st, text, false);
      return;
    }
    const before = st.kind;
    classify(st, text, false);
    if (st.kind && st.kind === before) schedule(st, settings.debounceMs);
  });

  documents.onDidClose((e) => {
    const st = states.get(e.document.uri);
    if (!st) return;
    st.closed = true;
    if (st.timer) clearTimeout(st.timer);
    states.delete(e.document.uri);
    if (st.published) connection.sendDiagnostics({ uri: st.uri, diagnostics: [] });
  });

  const sessionFor = (uri: string): { st: DocState; session: DocumentSession; text: string } | undefined => {
    const st = states.get(uri);
    const doc = documents.get(uri);
    if (!st || !st.session || !doc) return undefined;
    return { st, session: st.session, text: doc.getText() };
  };

  const routeKeysFor = (st: DocState): string[] => {
    const keys = new Set(routeIndex.keys(st.path));
    for (const other of states.values()) {
      if (other === st || !other.session?.routeKeys) continue;
      for (const k of other.session.routeKeys()) keys.add(k);
    }
    return [...keys];
  };

  connection.onCompletion((params) => {
    const s = sessionFor(params.textDocument.uri);
    if (!s || !s.session.completion) return [];
    const entries = s.session.completion(s.text, params.position, { routeKeys: routeKeysFor(s.st), schemaFeatures: schemaFeaturesFor(s.st, s.text) });
    return { isIncomplete: false, items: entries.map(toCompletionItem) };
  });

  connection.onHover((params) => {
    const s = sessionFor(params.textDocument.uri);
    if (!s || !s.session.hover) return null;
    const h = s.session.hover(s.text, params.position, { routeKeys: [], schemaFeatures: schemaFeaturesFor(s.st, s.text) });
    return h ? { contents: { kind: MarkupKind.Markdown, value: h.markdown }, range: h.range } : null;
  });

  connection.onCodeAction((params) => {
    const s = sessionFor(params.textDocument.uri);
    if (!s || !s.session.quickFixes) return [];
    const only = params.context.only;
    if (only && !only.some((k) => k === CodeActionKind.QuickFix || k === CodeActionKind.Empty)) return [];
    const actions: CodeAction[] = [];
    for (const f of s.session.quickFixes(s.text, params.range)) {
      actions.push({
        title: f.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [toLsp(f.diagnostic)],
        ...(f.isPreferred ? { isPreferred: true } : {}),
        edit: { changes: { [params.textDocument.uri]: f.edits } },
      });
    }
    return actions;
  });

  connection.onDocumentSymbol((params) => {
    const s = sessionFor(params.textDocument.uri);
    if (!s || !s.session.symbols) return [];
    const symbols = s.session.symbols(s.text);
    return hierarchicalSymbols ? symbols.map(toDocumentSymbol) : flatten(params.textDocument.uri, symbols, undefined, []);
  });

  documents.listen(connection);
  connection.listen();
}

declare const __SESSION_OPS_VERSION__: string | undefined;

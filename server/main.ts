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
//   pages.sourceRoot: string             (settings.sessionOps.pages.sourceRoot, or initializationOptions
//                                        `pages: {sourceRoot}`) a port's original source tree, relative to
//                                        the port folder (the parent of source-analysis): the source-test
//                                        column of 10-fidelity-baseline is checked against it; unset: not checked
//
// Source-analysis pages are checked one by one and as a set: the other pages of the same
// source-analysis folder are read from disk (open documents override disk; re-read after a file
// event from the client's watcher, or when a document closes), and when one page changes the other
// open pages of its folder are validated again. Diagnostics are published for open documents only.
// Folder-level diagnostics (a missing page) go on one open page of the folder, at its first line:
// its 10-fidelity-baseline when open, else the first open page in page order (see server/pageKind.ts).
// Custom messages (server/protocol.ts): request sessionOps/portAnalysis, the Port analysis view's
// data; notification sessionOps/portAnalysisChanged when page diagnostics or page files change.
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
  type Location,
  type SymbolInformation,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Diagnostic } from '../src/core/diagnostics';
import { PAGE_KINDS, PAGE_TITLES, portAnalysis, SOURCE_ANALYSIS_FOLDER, type PortFolderAnalysis } from '../src/core/pages';
import { validators, type CompletionEntry, type SymbolEntry } from '../src/core/routing';
import { KindRegistry, registerBuiltinKinds, type DocumentKind, type DocumentSession, type FeatureEnv, type GroupSettings, type KindSettings, type ServerSymbol } from './documentKinds';
import { findFolders, GroupFiles, pathKey } from './groupFiles';
import { PORT_ANALYSIS_CHANGED, PORT_ANALYSIS_REQUEST, type PortAnalysisChangedParams, type PortAnalysisParams, type PortAnalysisResult, type WirePortFolder } from './protocol';
import { RouteKeyIndex } from './workspaceIndex';

export type SchemaDiagnosticsMode = 'auto' | 'always' | 'never';

export interface ServerSettings {
  extraGlobs: string[];
  schemaDiagnostics: SchemaDiagnosticsMode;
  redhatYamlPresent: boolean;
  debounceMs: number;
  /** sessionOps.pages.sourceRoot ('' when unset). */
  pagesSourceRoot: string;
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
  /** The last diagnostics sent (JSON), to tell whether a page's diagnostics changed. */
  lastSent?: string;
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
  // sessionOps.pages.sourceRoot: absent from a full `sessionOps` section means unset.
  const section = o.sessionOps && typeof o.sessionOps === 'object' ? (o.sessionOps as Record<string, unknown>) : undefined;
  const pages = (section ? section.pages : o.pages) as Record<string, unknown> | undefined;
  if (section || (pages && typeof pages === 'object')) {
    const root = pages && typeof pages === 'object' ? pages.sourceRoot : undefined;
    into.pagesSourceRoot = typeof root === 'string' ? root.trim() : '';
  }
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

const symbolKind = (k: ServerSymbol['kind']): SymbolKind => (typeof k === 'number' ? (k as SymbolKind) : SYMBOL_KIND[k]);

function toDocumentSymbol(s: ServerSymbol): DocumentSymbol {
  return {
    name: s.name,
    ...(s.detail ? { detail: s.detail } : {}),
    kind: symbolKind(s.kind),
    range: s.range,
    selectionRange: s.selectionRange,
    ...(s.children ? { children: s.children.map(toDocumentSymbol) } : {}),
  };
}

function flatten(uri: string, list: ServerSymbol[], container: string | undefined, out: SymbolInformation[]): SymbolInformation[] {
  for (const s of list) {
    out.push({ name: s.name, kind: symbolKind(s.kind), location: { uri, range: s.range }, ...(container ? { containerName: container } : {}) });
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
  const settings: ServerSettings = { extraGlobs: [], schemaDiagnostics: 'auto', redhatYamlPresent: false, debounceMs: 15, pagesSourceRoot: '' };
  const groupFiles = new GroupFiles();
  const groupSettings = (): GroupSettings => (settings.pagesSourceRoot ? { pagesSourceRoot: settings.pagesSourceRoot } : {});
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
        definitionProvider: true,
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
    const sourceRoot = settings.pagesSourceRoot;
    readSettings(settings, params.settings);
    reclassifyAll();
    if (settings.pagesSourceRoot !== sourceRoot) {
      // The source-test check of every page set changed.
      for (const st of states.values()) if (st.kind?.groups) schedule(st, 0);
      changed(allOpenGroupFolders());
    }
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
        let cur = documents.get(st.uri);
        if (!cur || cur.version !== version || st.closed || st.session !== session) return;
        const groups = st.kind?.groups;
        const folder = groups?.folderOf(st.path) ?? null;
        if (groups && folder !== null) {
          // Cross-file checks over the group: the other pages of the folder, open ones as edited.
          const files = await groupFiles.files(folder, groups.member, openTexts());
          cur = documents.get(st.uri);
          if (!cur || cur.version !== version || st.closed || st.session !== session) return;
          const reported = new Set(openMembers(folder, st.kind).map((o) => o.path));
          reported.add(st.path);
          const cross = groups.check(files, groupSettings(), reported);
          diags = [...diags, ...(cross.get(st.path) ?? [])];
        }
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
    const lsp = diags.map(toLsp);
    connection.sendDiagnostics({ uri: st.uri, version, diagnostics: lsp });
    st.published = true;
    if (kind.groups) {
      const sent = JSON.stringify(lsp);
      if (sent !== st.lastSent) {
        st.lastSent = sent;
        const folder = kind.groups.folderOf(st.path);
        if (folder !== null) changed([folder]);
      }
    }
  }

  /** Open documents' texts by path (the overlay on what the disk holds). */
  function openTexts(): Map<string, string> {
    const out = new Map<string, string>();
    for (const st of states.values()) {
      if (st.closed) continue;
      const doc = documents.get(st.uri);
      if (doc) out.set(st.path, doc.getText());
    }
    return out;
  }

  /** Open documents of `kind` whose group folder is `folder`. */
  function openMembers(folder: string, kind: DocumentKind | undefined): DocState[] {
    const key = pathKey(folder);
    return [...states.values()].filter((o) => !o.closed && o.kind === kind && kind?.groups && pathKey(kind.groups.folderOf(o.path) ?? '\u0000') === key);
  }

  /** Validates again the other open documents of the group of `st` (their cross-file checks see its change). */
  function scheduleSiblings(st: DocState, delay = settings.debounceMs): void {
    const folder = st.kind?.groups?.folderOf(st.path);
    if (folder == null) return;
    for (const o of openMembers(folder, st.kind)) if (o !== st) schedule(o, delay);
  }

  function allOpenGroupFolders(): string[] {
    const out = new Set<string>();
    for (const st of states.values()) {
      const f = st.kind?.groups?.folderOf(st.path);
      if (f != null) out.add(f);
    }
    return [...out];
  }

  // sessionOps/portAnalysisChanged, coalesced over a short window.
  const changedFolders = new Set<string>();
  let changedTimer: NodeJS.Timeout | undefined;
  function changed(folders: Iterable<string>): void {
    for (const f of folders) changedFolders.add(f);
    if (changedFolders.size === 0 || changedTimer) return;
    changedTimer = setTimeout(() => {
      changedTimer = undefined;
      const params: PortAnalysisChangedParams = { folders: [...changedFolders].sort() };
      changedFolders.clear();
      void connection.sendNotification(PORT_ANALYSIS_CHANGED, params);
    }, 50);
  }

  documents.onDidChangeContent((e) => {
    const uri = e.document.uri;
    let st = states.get(uri);
    const text = e.document.getText();
    if (!st) {
      st = { uri, path: uriToPath(uri), published: false, closed: false };
      states.set(uri, st);
      classify(st, text, false);
      // A page that opens may become its folder's anchor page, or bring unsaved text.
      scheduleSiblings(st, 0);
      return;
    }
    const before = st.kind;
    classify(st, text, false);
    if (st.kind && st.kind === before) schedule(st, settings.debounceMs);
    scheduleSiblings(st);
  });

  documents.onDidClose((e) => {
    const st = states.get(e.document.uri);
    if (!st) return;
    st.closed = true;
    if (st.timer) clearTimeout(st.timer);
    states.delete(e.document.uri);
    if (st.published) connection.sendDiagnostics({ uri: st.uri, diagnostics: [] });
    const folder = st.kind?.groups?.folderOf(st.path);
    if (folder != null) {
      // Its unsaved text is gone: the set reads the disk again.
      groupFiles.invalidate(st.path);
      scheduleSiblings(st, 0);
      changed([folder]);
    }
  });

  // Files changed on disk (the client's watcher, e.g. VS Code's synchronize.fileEvents).
  connection.onDidChangeWatchedFiles((params) => {
    const folders = new Set<string>();
    for (const ev of params.changes) {
      const p = uriToPath(ev.uri);
      groupFiles.invalidate(p);
      groupFiles.invalidate(p, true);
      for (const k of registry.all()) {
        const g = k.groups;
        if (!g) continue;
        const f = g.folderOf(p);
        if (f !== null) folders.add(f);
        else if (path.basename(p).toLowerCase() === SOURCE_ANALYSIS_FOLDER) folders.add(p); // the folder itself
      }
    }
    if (folders.size === 0) return;
    const keys = new Set([...folders].map(pathKey));
    for (const st of states.values()) {
      const f = st.kind?.groups?.folderOf(st.path);
      if (f != null && keys.has(pathKey(f))) schedule(st, 0);
    }
    changed(folders);
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

  /** The other files of the document's group, for features that look across them. */
  const relatedFor = async (st: DocState): Promise<ReadonlyMap<string, string> | undefined> => {
    const g = st.kind?.groups;
    const folder = g?.folderOf(st.path);
    if (!g || folder == null) return undefined;
    return groupFiles.files(folder, g.member, openTexts());
  };

  connection.onHover(async (params) => {
    const s = sessionFor(params.textDocument.uri);
    if (!s || !s.session.hover) return null;
    const env: FeatureEnv = { routeKeys: [], schemaFeatures: schemaFeaturesFor(s.st, s.text), related: await relatedFor(s.st) };
    const h = s.session.hover(s.text, params.position, env);
    return h ? { contents: { kind: MarkupKind.Markdown, value: h.markdown }, range: h.range } : null;
  });

  /** A file's URI: the open document's own URI when it is open (so that the editor matches it). */
  const uriOf = (filePath: string): string => {
    const key = pathKey(filePath);
    for (const st of states.values()) if (pathKey(st.path) === key) return st.uri;
    return pathToFileURL(filePath).href;
  };

  connection.onDefinition(async (params): Promise<Location | null> => {
    const s = sessionFor(params.textDocument.uri);
    if (!s || !s.session.definition) return null;
    const env: FeatureEnv = { routeKeys: [], schemaFeatures: true, related: await relatedFor(s.st) };
    const d = s.session.definition(s.text, params.position, env);
    return d ? { uri: uriOf(d.filePath), range: d.range } : null;
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

  connection.onRequest(PORT_ANALYSIS_REQUEST, async (params: PortAnalysisParams | null): Promise<PortAnalysisResult> => {
    const kind = registry.get('page');
    const groups = kind?.groups;
    if (!kind || kind.unavailable || !groups) return { folders: [] };
    const given = (params?.folders ?? []).filter((f): f is string => typeof f === 'string' && f.length > 0).map(uriToPath);
    const folders = new Map<string, string>();
    for (const f of await findFolders(given.length ? given : roots, SOURCE_ANALYSIS_FOLDER)) folders.set(pathKey(f), f);
    if (!given.length) for (const f of allOpenGroupFolders()) if (!folders.has(pathKey(f))) folders.set(pathKey(f), f);
    const open = openTexts();
    const texts = new Map<string, string>();
    for (const f of folders.values()) for (const [p, t] of await groupFiles.files(f, groups.member, open)) texts.set(p, t);
    const sourceRoot = settings.pagesSourceRoot;
    const analysis = portAnalysis(texts, sourceRoot ? { sourceRoot } : {});
    const byFolder = new Map(analysis.folders.map((a) => [pathKey(a.folder), a]));
    const out: WirePortFolder[] = [];
    for (const folder of [...folders.values()].sort()) {
      const a: PortFolderAnalysis = byFolder.get(pathKey(folder)) ?? {
        folder,
        pages: PAGE_KINDS.map((k) => ({ kind: k, title: PAGE_TITLES[k], filePath: null, errors: 0, warnings: 0, others: 0, diagnostics: [] })),
        folderDiagnostics: [],
        fidelity: null,
      };
      const port = path.dirname(folder);
      out.push({
        folder,
        folderUri: pathToFileURL(folder).href,
        port,
        portName: path.basename(port),
        pages: a.pages.map((pg) => ({ ...pg, uri: pg.filePath ? uriOf(pg.filePath) : null })),
        folderDiagnostics: a.folderDiagnostics,
        fidelity: a.fidelity ? { ...a.fidelity, uri: uriOf(a.fidelity.filePath) } : null,
      });
    }
    return { folders: out };
  });

  documents.listen(connection);
  connection.listen();
}

declare const __SESSION_OPS_VERSION__: string | undefined;

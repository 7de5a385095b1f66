// The language server's settings, defined once: the shape the extension's language client sends
// (initializationOptions), the server's parsed form, its defaults, and the parser. The server never
// asks the client for configuration (no workspace/configuration), so any LSP editor can run it:
// settings come in initializationOptions and in workspace/didChangeConfiguration.
//
//   extraGlobs: string[]                  more file globs treated as routing tables
//   schemaDiagnostics: auto|always|never  `auto`: when Red Hat's YAML server is present, leave to it
//                                         what it reports too (YAML syntax errors; schema errors where
//                                         it applies our schema: the yamlValidation names and $schema
//                                         pointers) and schema completion/hover there; `always`:
//                                         report everything; `never`: drop those even without it
//   redhatYamlPresent: boolean            is redhat.vscode-yaml installed (also: notification sessionOps/environment)
//   debounceMs: number                    coalescing window for a burst of edits (default 15; an edit after a quiet spell and an open are validated at once)
//   pages.sourceRoot: string              a port's original source tree, relative to the port folder
//                                         (the parent of source-analysis): the source-test column of
//                                         10-fidelity-baseline is checked against it; unset: not checked
//
// Accepted forms: these keys at the top level (initializationOptions), or nested as
// `{routing: {...}, pages: {...}}` or `{sessionOps: {routing: {...}, pages: {...}}}` (the
// didChangeConfiguration payload of VS Code's `synchronize.configurationSection`).

export type SchemaDiagnosticsMode = 'auto' | 'always' | 'never';

/** What the extension's language client sends as initializationOptions. */
export interface InitializationOptions {
  extraGlobs?: string[];
  schemaDiagnostics?: SchemaDiagnosticsMode;
  redhatYamlPresent?: boolean;
  debounceMs?: number;
  pages?: { sourceRoot?: string };
}

/** The server's settings, parsed. */
export interface ServerSettings {
  extraGlobs: string[];
  schemaDiagnostics: SchemaDiagnosticsMode;
  redhatYamlPresent: boolean;
  debounceMs: number;
  /** sessionOps.pages.sourceRoot ('' when unset). */
  pagesSourceRoot: string;
}

export function defaultSettings(): ServerSettings {
  return { extraGlobs: [], schemaDiagnostics: 'auto', redhatYamlPresent: false, debounceMs: 15, pagesSourceRoot: '' };
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Reads what `src` holds into `into` (values of the wrong type are ignored). */
export function readSettings(into: ServerSettings, src: unknown): void {
  if (!isRecord(src)) return;
  const section = isRecord(src.sessionOps) ? src.sessionOps : undefined;
  const nested = section?.routing ?? src.routing;
  if (isRecord(nested)) readSettings(into, nested);
  if (Array.isArray(src.extraGlobs)) into.extraGlobs = src.extraGlobs.filter((g): g is string => typeof g === 'string');
  if (src.schemaDiagnostics === 'auto' || src.schemaDiagnostics === 'always' || src.schemaDiagnostics === 'never')
    into.schemaDiagnostics = src.schemaDiagnostics;
  if (typeof src.redhatYamlPresent === 'boolean') into.redhatYamlPresent = src.redhatYamlPresent;
  if (typeof src.debounceMs === 'number' && src.debounceMs >= 0) into.debounceMs = src.debounceMs;
  // pages.sourceRoot: absent from a full `sessionOps` section means unset.
  const pages = section ? section.pages : src.pages;
  if (section || isRecord(pages)) {
    const root = isRecord(pages) ? pages.sourceRoot : undefined;
    into.pagesSourceRoot = typeof root === 'string' ? root.trim() : '';
  }
}

// The language server's settings, defined once: the editor settings it reads (LANGUAGE_SERVER_SETTINGS:
// type, default, enum, description, in the declaration form of src/core/settings/definition.ts), the
// shape the extension's language client sends (initializationOptions), the server's parsed form, and
// the parser. The server never
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
//   maxDocumentMB: number                 documents larger than this are not analysed: one diagnostic
//                                         says so, and only a top-level outline is given (default 8)
//   pages.sourceRoot: string              a port's original source tree, relative to the port folder
//                                         (the parent of source-analysis): the source-test column of
//                                         10-fidelity-baseline is checked against it; unset: not checked
//
// Accepted forms: these keys at the top level (initializationOptions), or nested as
// `{routing: {...}, pages: {...}}` or `{sessionOps: {routing: {...}, pages: {...}}}` (the
// didChangeConfiguration payload of VS Code's `synchronize.configurationSection`).

import { coerceSetting, defaultsOf, type SettingDefinition } from '../core/settings/definition';

/** The editor settings (`sessionOps.<name>`) the language server reads, declared once; package.json repeats them. */
export const LANGUAGE_SERVER_SETTINGS = {
  'routing.extraGlobs': {
    type: 'string-list',
    default: [],
    scope: 'window',
    description:
      'More files to treat as routing tables. A glob without `/` matches the file name (`*.routes.yaml`); with `/` it matches the path relative to a workspace folder (`config/*.yaml`). `routing.yaml`, `routing.yml`, `*.routing.yaml` and YAML files whose `$schema` points at `routing.schema.json` always are.',
  },
  'routing.schemaDiagnostics': {
    type: 'string',
    default: 'auto',
    enum: ['auto', 'always', 'never'],
    enumDescriptions: [
      "Report YAML syntax and schema errors, except those Red Hat's YAML extension already reports for a file when it is installed.",
      "Always report them (may double them next to Red Hat's YAML extension).",
      "Never report what Red Hat's YAML extension would report; keep the routing warnings.",
    ],
    description:
      "Who reports YAML syntax and schema errors in routing tables when Red Hat's YAML extension is also installed (it validates them through this extension's `yamlValidation` contribution).",
  },
  maxDocumentMB: {
    type: 'integer',
    default: 8,
    minimum: 1,
    maximum: 64,
    scope: 'window',
    description:
      'Routing tables and pages larger than this many megabytes are not analysed: one diagnostic on the first line says so, and only an outline of the top level is given. The language server stays under 400 MB for one document up to 10 MB; a larger limit takes more memory.',
  },
  'pages.sourceRoot': {
    type: 'string',
    default: '',
    scope: 'window',
    description:
      "The ports' original source tree, relative to each port folder (the folder holding `source-analysis`), or absolute, for example `src`. When set, every source test named in `10-fidelity-baseline` must exist under it (warning `page.source-test-not-found`). Empty: source tests are not checked.",
  },
} as const satisfies Record<string, SettingDefinition>;

export type LanguageServerSettingKey = keyof typeof LANGUAGE_SERVER_SETTINGS;

const EDITOR_DEFAULTS = defaultsOf(LANGUAGE_SERVER_SETTINGS);

export type SchemaDiagnosticsMode = (typeof LANGUAGE_SERVER_SETTINGS)['routing.schemaDiagnostics']['enum'][number];

/** What the extension's language client sends as initializationOptions. */
export interface InitializationOptions {
  extraGlobs?: string[];
  schemaDiagnostics?: SchemaDiagnosticsMode;
  redhatYamlPresent?: boolean;
  debounceMs?: number;
  maxDocumentMB?: number;
  pages?: { sourceRoot?: string };
}

/** The initializationOptions from the editor's settings (`get`: a setting's raw value by name). */
export function initializationOptionsFrom(
  get: (key: LanguageServerSettingKey) => unknown,
  redhatYamlPresent: boolean,
): InitializationOptions {
  const read = <K extends LanguageServerSettingKey>(key: K) => coerceSetting(LANGUAGE_SERVER_SETTINGS[key], get(key));
  return {
    extraGlobs: [...read('routing.extraGlobs')],
    redhatYamlPresent,
    schemaDiagnostics: read('routing.schemaDiagnostics') as SchemaDiagnosticsMode,
    maxDocumentMB: read('maxDocumentMB'),
    pages: { sourceRoot: read('pages.sourceRoot') },
  };
}

/** The server's settings, parsed. */
export interface ServerSettings {
  extraGlobs: string[];
  schemaDiagnostics: SchemaDiagnosticsMode;
  redhatYamlPresent: boolean;
  debounceMs: number;
  /** sessionOps.maxDocumentMB: larger documents get one diagnostic and a top-level outline only. */
  maxDocumentMB: number;
  /** sessionOps.pages.sourceRoot ('' when unset). */
  pagesSourceRoot: string;
}

export function defaultSettings(): ServerSettings {
  return {
    extraGlobs: [...EDITOR_DEFAULTS['routing.extraGlobs']],
    schemaDiagnostics: EDITOR_DEFAULTS['routing.schemaDiagnostics'] as SchemaDiagnosticsMode,
    redhatYamlPresent: false,
    debounceMs: 15,
    maxDocumentMB: EDITOR_DEFAULTS.maxDocumentMB,
    pagesSourceRoot: EDITOR_DEFAULTS['pages.sourceRoot'],
  };
}

const isSchemaDiagnosticsMode = (v: unknown): v is SchemaDiagnosticsMode =>
  (LANGUAGE_SERVER_SETTINGS['routing.schemaDiagnostics'].enum as readonly unknown[]).includes(v);

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** Reads what `src` holds into `into` (values of the wrong type are ignored). */
export function readSettings(into: ServerSettings, src: unknown): void {
  if (!isRecord(src)) return;
  const section = isRecord(src.sessionOps) ? src.sessionOps : undefined;
  const nested = section?.routing ?? src.routing;
  if (isRecord(nested)) readSettings(into, nested);
  if (Array.isArray(src.extraGlobs)) into.extraGlobs = src.extraGlobs.filter((g): g is string => typeof g === 'string');
  if (isSchemaDiagnosticsMode(src.schemaDiagnostics)) into.schemaDiagnostics = src.schemaDiagnostics;
  if (typeof src.redhatYamlPresent === 'boolean') into.redhatYamlPresent = src.redhatYamlPresent;
  if (typeof src.debounceMs === 'number' && src.debounceMs >= 0) into.debounceMs = src.debounceMs;
  const maxMB = section ? section.maxDocumentMB : src.maxDocumentMB;
  if (maxMB !== undefined) into.maxDocumentMB = coerceSetting(LANGUAGE_SERVER_SETTINGS.maxDocumentMB, maxMB);
  // pages.sourceRoot: absent from a full `sessionOps` section means unset.
  const pages = section ? section.pages : src.pages;
  if (section || isRecord(pages)) {
    const root = isRecord(pages) ? pages.sourceRoot : undefined;
    into.pagesSourceRoot = typeof root === 'string' ? root.trim() : '';
  }
}

// The shape of a document kind: which files it claims, and a per-document session that validates
// (possibly incrementally, as a generator that yields so that a newer version can cancel it) and,
// optionally, answers editor features. Everything kind-specific that the server or the CLI needs
// is a member here (a hook), so that their loops over kinds never name a kind. Types only: the
// kinds import this file, and the registry imports the kinds (no cycle). No LSP runtime imports
// (the CLI bundles the kinds too).
import type { Diagnostic, Position, Range } from '../../src/core/diagnostics';
import type { CompletionEntry, HoverResult, QuickFix, RouteKeyRange, SymbolEntry } from '../../src/language/routing';

export interface KindSettings {
  /** Extra globs for routing tables (setting sessionOps.routing.extraGlobs). */
  extraGlobs: readonly string[];
  /** Workspace folder paths (globs with '/' match relative to them). */
  roots: readonly string[];
}

export interface FeatureEnv {
  /** Kind/* labels used in other routing tables of the workspace. */
  routeKeys: readonly string[];
  /** False when another YAML server provides schema completion/hover (Red Hat's) for this file. */
  schemaFeatures: boolean;
  /** The other files of the document's group (kinds with `groups`): texts by path, open documents over disk. */
  related?: ReadonlyMap<string, string>;
}

/** A document symbol: a routing symbol kind name, or an LSP SymbolKind number. */
export type ServerSymbol = Omit<SymbolEntry, 'kind' | 'children'> & {
  kind: SymbolEntry['kind'] | number;
  children?: ServerSymbol[];
};

/** Settings of the cross-file checks of a group. */
export interface GroupSettings {
  /** sessionOps.pages.sourceRoot: the port's source tree, relative to the port folder (or absolute). */
  pagesSourceRoot?: string;
}

/**
 * Files checked together (the pages of one source-analysis folder): the server reads a group's
 * other files from disk (open documents override disk) and the CLI validates folders by group.
 */
export interface DocumentGroups {
  /** The name of group folders (compared case-insensitively), e.g. "source-analysis". */
  readonly folderName: string;
  /** The folder whose member files form this file's group; null: the file is in none. */
  folderOf(filePath: string): string | null;
  /** Is this path a group folder itself? */
  isGroupFolder(folderPath: string): boolean;
  /** Is the file (a direct child of a group folder) a member? */
  member(filePath: string): boolean;
  /**
   * Cross-file diagnostics of the groups among `files` (texts by path), for the `reported` paths
   * (default: all): an entry, possibly empty, for each reported member.
   */
  check(
    files: ReadonlyMap<string, string>,
    settings: GroupSettings,
    reported?: ReadonlySet<string>,
  ): Map<string, Diagnostic[]>;
}

export type ValidationRun = Diagnostic[] | Generator<void, Diagnostic[], void>;

export interface DocumentSession {
  /** Diagnostics for this text; a generator may be abandoned between steps. */
  validate(text: string): ValidationRun;
  completion?(text: string, pos: Position, env: FeatureEnv): CompletionEntry[];
  hover?(text: string, pos: Position, env: FeatureEnv): HoverResult | undefined;
  quickFixes?(text: string, range: Range): QuickFix[];
  /**
   * The analysis of this text in steps (shared with a validation of the same text under way), run
   * by a request in slices before the synchronous features below, which then find it done.
   */
  prepare?(text: string): Generator<void, unknown, void>;
  /** The outline (a kind caps its length: a hostile document is not sent whole). */
  symbols?(text: string): ServerSymbol[];
  /** The top level only, by a line scan: the outline of a document too large to analyse. */
  outline?(text: string): ServerSymbol[];
  /** Where the symbol at `pos` is defined (possibly in a related file). */
  definition?(text: string, pos: Position, env: FeatureEnv): { filePath: string; range: Range } | undefined;
  /** The route keys whose CodeLenses this document shows (Effective route, Dispatch a ticket on this route...). */
  routeLenses?(text: string): RouteKeyRange[];
  /** Route keys this document defines (for other documents' completion). */
  routeKeys?(): string[];
  /** Statistics of the last validation, for tests and benchmarks. */
  stats?(): unknown;
}

export interface YamlServerOverlap {
  reports(code: string): boolean;
  schemaFeatures: boolean;
}

export interface DocumentKind {
  /** 'routing', 'page': the value of `session-ops validate --kind`. */
  readonly id: string;
  /** Human name, e.g. "routing table". */
  readonly title: string;
  /** Diagnostic source, e.g. "session-ops.routing". */
  readonly source: string;
  /** Set when this build cannot validate the kind; says why. */
  readonly unavailable?: string;
  /**
   * Does the kind handle this file? `text` is passed when known (a routing table can be claimed by
   * its `$schema`). When walking folders the CLI asks with the text of candidate files.
   */
  claims(filePath: string, text: string | undefined, settings: KindSettings): boolean;
  /** Could the file be of this kind, judged by its path alone? (folder walks read only these) */
  candidate(filePath: string, settings: KindSettings): boolean;
  /** Is a file named explicitly (CLI) but claimed by no kind read as this kind? (routing: any YAML file) */
  fallbackFor?(filePath: string): boolean;
  /**
   * What another YAML language server (Red Hat's, which reads our `yamlValidation` contribution)
   * also does for this file: the diagnostic codes it reports too (YAML syntax for any YAML file;
   * schema errors where it applies our schema) and whether it serves schema completion and hover.
   */
  overlapWithYamlServer?(filePath: string, text: string): YamlServerOverlap;
  /**
   * Set when files of this kind define route keys that other documents complete: the server
   * indexes the workspace's files of the kind in the background with this.
   */
  routeKeysIn?(text: string): string[];
  /** Set when files of this kind are also checked together with their group (see DocumentGroups). */
  readonly groups?: DocumentGroups;
  /** A session for one document (holds incremental caches). */
  open(filePath: string): DocumentSession;
}

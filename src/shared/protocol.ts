// Session Ops' own LSP messages (besides the standard ones), typed, in the one module that the
// language server (server/), the language client (src/extension/client) and the extension's views
// import. Method names appear nowhere else.
//
// RequestType/NotificationType come from vscode-jsonrpc's small `messages` module (the same one
// vscode-languageserver and vscode-languageclient re-export), not from either package's entry:
// the extension bundle imports this file and must pull in neither the server runtime nor the page
// parser (types only from src/language/pages).
import { NotificationType, RequestType } from 'vscode-jsonrpc/lib/common/messages';
import type { Diagnostic, Range } from '../core/diagnostics';
import type { ChunkSummary, FidSummary, PageKind } from '../language/pages';

export interface PortAnalysisParams {
  /**
   * Where to look for `source-analysis` folders (paths or file URIs; a source-analysis folder
   * itself may be given). Default: the workspace folders, plus the folders of open pages.
   */
  folders?: string[];
}

export interface WirePageSummary {
  kind: PageKind;
  title: string;
  /** Null (and uri null) when the set has no such page. */
  filePath: string | null;
  uri: string | null;
  errors: number;
  warnings: number;
  /** Information and hints. */
  others: number;
  /** Single-page and cross-page diagnostics (0-based ranges); folder-level ones are in folderDiagnostics. */
  diagnostics: Diagnostic[];
}

export interface WireFidelity {
  filePath: string;
  uri: string;
  chunks: ChunkSummary[];
  unchunked: FidSummary[];
  totals: { fids: number; chunks: number; byType: Record<string, number>; untyped: number };
}

export interface WirePortFolder {
  /** The source-analysis folder. */
  folder: string;
  folderUri: string;
  /** The port folder (the parent of source-analysis) and its name. */
  port: string;
  portName: string;
  /** Always six entries, in page order. */
  pages: WirePageSummary[];
  /** A missing page and the like (0-based ranges, meaningless: they belong to the folder). */
  folderDiagnostics: Diagnostic[];
  fidelity: WireFidelity | null;
}

export interface PortAnalysisResult {
  folders: WirePortFolder[];
}

export interface PortAnalysisChangedParams {
  /** The source-analysis folders concerned. */
  folders: string[];
}

export interface EnvironmentParams {
  /** Is Red Hat's YAML extension (redhat.vscode-yaml) installed? */
  redhatYamlPresent?: boolean;
}

export interface StatsParams {
  /** The document's URI. */
  uri: string;
  /** Collect garbage first (when the server runs with --expose-gc: tests of memory). */
  gc?: boolean;
}

export interface StatsResult {
  /** The document kind's id ('routing', 'page'), null when no kind claims the document. */
  kind: string | null;
  /** The last validated version. */
  version: number | null;
  /** The kind's statistics of the last validation (routing: chunks, reused, ...). */
  stats: unknown;
  /** The server's JS heap in use, bytes (after a collection when `gc` was asked and possible). */
  heapUsed?: number;
}

/** Request (client → server): the Port analysis view's data. */
export const PortAnalysisRequest = new RequestType<PortAnalysisParams | null, PortAnalysisResult, void>(
  'sessionOps/portAnalysis',
);

/** Notification (server → client): page diagnostics (or page files on disk) changed. */
export const PortAnalysisChangedNotification = new NotificationType<PortAnalysisChangedParams>(
  'sessionOps/portAnalysisChanged',
);

/** Notification (client → server): the editor's environment changed (Red Hat's YAML extension installed or removed). */
export const EnvironmentNotification = new NotificationType<EnvironmentParams>('sessionOps/environment');

/** Request (client → server, tests and benchmarks): a document's kind, last validated version and statistics. */
export const StatsRequest = new RequestType<StatsParams, StatsResult, void>('sessionOps/stats');

export type { ChunkSummary, FidSummary, NotificationType, Range, RequestType };

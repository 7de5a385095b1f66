// Session Ops' own LSP messages (besides the standard ones). Types and method names only: the
// extension imports this file too, and must not pull the page parser into its bundle.
import type { Diagnostic, Range } from '../src/core/diagnostics';
import type { ChunkSummary, FidSummary, PageKind } from '../src/core/pages';

/** Request: the Port analysis view's data. */
export const PORT_ANALYSIS_REQUEST = 'sessionOps/portAnalysis';
/** Notification (server → client): page diagnostics (or page files on disk) changed. */
export const PORT_ANALYSIS_CHANGED = 'sessionOps/portAnalysisChanged';

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

export type { ChunkSummary, FidSummary, Range };

// The Port analysis view's data: per source-analysis folder, the six pages with their problem
// counts, and the fidelity baseline as chunks > FIDs.

import type { Diagnostic, Range } from '../../core/diagnostics';
import { PAGE_KINDS, PAGE_TITLES, type PageKind } from './kinds';
import { checkPage } from './analyze';
import { groupPageSet, validatePageSet, type PageSetOptions } from './crossPage';
import type { BehaviorType, FidelityModel, PageModel } from './model';

export interface PageSummary {
  kind: PageKind;
  title: string;
  /** Null when the set has no such page. */
  filePath: string | null;
  errors: number;
  warnings: number;
  /** Information and hints. */
  others: number;
  diagnostics: Diagnostic[];
}

export interface FidSummary {
  fid: string;
  behavior: string;
  type: string;
  behaviorType: BehaviorType | null;
  sourceTest: string;
  chunk: string;
  /** The inventory row. */
  range: Range;
}

export interface ChunkSummary {
  name: string;
  /** Where the chunk is declared (Chunks section), else its first row's chunk cell. */
  range: Range;
  declared: boolean;
  fids: FidSummary[];
}

export interface FidelitySummary {
  filePath: string;
  /** In order of first appearance (declared chunks first when there is a Chunks section). */
  chunks: ChunkSummary[];
  /** Rows with no chunk or several. */
  unchunked: FidSummary[];
  totals: { fids: number; chunks: number; byType: Record<BehaviorType, number>; untyped: number };
}

export interface PortFolderAnalysis {
  /** The source-analysis folder. */
  folder: string;
  /** Always six entries, in page order. */
  pages: PageSummary[];
  folderDiagnostics: Diagnostic[];
  fidelity: FidelitySummary | null;
}

export interface PortAnalysis {
  folders: PortFolderAnalysis[];
}

function summarizeFidelity(model: FidelityModel): FidelitySummary {
  const chunks = new Map<string, ChunkSummary>();
  for (const c of model.declaredChunks ?? []) {
    if (!chunks.has(c.name.toLowerCase()))
      chunks.set(c.name.toLowerCase(), { name: c.name, range: c.range, declared: true, fids: [] });
  }
  const unchunked: FidSummary[] = [];
  const byType: Record<BehaviorType, number> = { 'happy path': 0, 'error path': 0, 'edge case': 0 };
  let untyped = 0;
  for (const r of model.rows) {
    const fid: FidSummary = {
      fid: r.fid,
      behavior: r.behavior,
      type: r.type,
      behaviorType: r.behaviorType,
      sourceTest: r.sourceTest,
      chunk: r.chunk,
      range: r.range,
    };
    if (r.behaviorType) byType[r.behaviorType]++;
    else untyped++;
    if (!r.chunkName) {
      unchunked.push(fid);
      continue;
    }
    const key = r.chunkName.toLowerCase();
    let c = chunks.get(key);
    if (!c) chunks.set(key, (c = { name: r.chunkName, range: r.chunkRange, declared: false, fids: [] }));
    c.fids.push(fid);
  }
  return {
    filePath: model.filePath,
    chunks: [...chunks.values()],
    unchunked,
    totals: { fids: model.rows.length, chunks: chunks.size, byType, untyped },
  };
}

/** Analysis of every source-analysis folder among `pages` (texts keyed by file path). */
export function portAnalysis(pages: ReadonlyMap<string, string>, opts: PageSetOptions = {}): PortAnalysis {
  const models = new Map<string, PageModel>();
  const diagnostics = new Map<string, Diagnostic[]>();
  for (const [p, text] of pages) {
    const check = checkPage(text, p);
    if (!check) continue;
    models.set(p, check.model);
    diagnostics.set(p, check.diagnostics);
  }
  for (const [p, diags] of validatePageSet(models, opts)) diagnostics.set(p, [...(diagnostics.get(p) ?? []), ...diags]);
  const folders = groupPageSet(models);
  return {
    folders: folders.map((f) => {
      const summaries = PAGE_KINDS.map((kind): PageSummary => {
        const model = f.byKind.get(kind);
        const diags = model ? (diagnostics.get(model.filePath) ?? []) : [];
        return {
          kind,
          title: PAGE_TITLES[kind],
          filePath: model?.filePath ?? null,
          errors: diags.filter((d) => d.severity === 'error').length,
          warnings: diags.filter((d) => d.severity === 'warning').length,
          others: diags.filter((d) => d.severity === 'information' || d.severity === 'hint').length,
          diagnostics: diags,
        };
      });
      const baseline = f.byKind.get('10-fidelity-baseline') as FidelityModel | undefined;
      return {
        folder: f.folder,
        pages: summaries,
        folderDiagnostics: diagnostics.get(f.folder) ?? [],
        fidelity: baseline ? summarizeFidelity(baseline) : null,
      };
    }),
  };
}

// sessionOps/portAnalysis: the Port analysis view's data. Every source-analysis folder under the
// given folders (default: the workspace folders, plus the folders of open pages), each page set
// analysed with open documents over disk.
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PAGE_KINDS, PAGE_TITLES, portAnalysis, type PortFolderAnalysis } from '../../src/language/pages';
import { PortAnalysisRequest, type WirePortFolder } from '../../src/shared/protocol';
import type { ServerContext } from '../server-context';
import { findFolders } from '../groupFiles';
import type { GroupCoordinator } from '../groups';
import { pageKind } from '../kinds/page';
import { pathKey, uriToPath } from '../paths';

export function registerPortAnalysisHandler(ctx: ServerContext, groups: GroupCoordinator): void {
  ctx.connection.onRequest(PortAnalysisRequest, async (params) => {
    // The registry may hold another page kind (tests), or mark it unavailable.
    const kind = ctx.registry.get(pageKind.id);
    const g = kind?.groups;
    if (!kind || kind.unavailable || !g) return { folders: [] };
    const given = (Array.isArray(params?.folders) ? params.folders : [])
      .filter((f): f is string => typeof f === 'string' && f.length > 0)
      .map(uriToPath);
    const folders = new Map<string, string>();
    for (const f of await findFolders(given.length ? given : ctx.workspace.roots, g.isGroupFolder))
      folders.set(pathKey(f), f);
    if (!given.length) for (const f of groups.openFolders()) if (!folders.has(pathKey(f))) folders.set(pathKey(f), f);
    const open = ctx.store.openTexts();
    const texts = new Map<string, string>();
    for (const f of folders.values()) for (const [p, t] of await groups.files.files(f, g.member, open)) texts.set(p, t);
    const sourceRoot = ctx.settings.pagesSourceRoot;
    const analysis = portAnalysis(texts, sourceRoot ? { sourceRoot } : {});
    const byFolder = new Map(analysis.folders.map((a) => [pathKey(a.folder), a]));
    const out: WirePortFolder[] = [];
    for (const folder of [...folders.values()].sort()) {
      const a: PortFolderAnalysis = byFolder.get(pathKey(folder)) ?? {
        folder,
        pages: PAGE_KINDS.map((k) => ({
          kind: k,
          title: PAGE_TITLES[k],
          filePath: null,
          errors: 0,
          warnings: 0,
          others: 0,
          diagnostics: [],
        })),
        folderDiagnostics: [],
        fidelity: null,
      };
      const port = path.dirname(folder);
      out.push({
        folder,
        folderUri: pathToFileURL(folder).href,
        port,
        portName: path.basename(port),
        pages: a.pages.map((pg) => ({ ...pg, uri: pg.filePath ? ctx.store.uriOf(pg.filePath) : null })),
        folderDiagnostics: a.folderDiagnostics,
        fidelity: a.fidelity ? { ...a.fidelity, uri: ctx.store.uriOf(a.fidelity.filePath) } : null,
      });
    }
    return { folders: out };
  });
}

// The group coordinator: documents of grouped kinds (the pages of a source-analysis folder) are
// checked one by one and as a set. The other members of a group are read from disk (open documents
// override disk; re-read after a file event from the client's watcher, or when a document closes),
// and when one member changes the other open members of its folder are validated again.
// Folder-level diagnostics (a missing page) go on one open member of the folder (see the page
// kind's anchorPage). Changes are announced with sessionOps/portAnalysisChanged, coalesced.
import { systemClock, type TimerHandle } from '../src/core/clock';
import type { Diagnostic } from '../src/core/diagnostics';
import { PortAnalysisChangedNotification } from '../src/shared/protocol';
import { groupSettings, type ServerContext } from './server-context';
import type { DocState } from './documents';
import { GroupFiles } from './groupFiles';
import type { DocumentKind } from './kinds/types';
import { pathKey, uriToPath } from './paths';
import type { CrossFileChecks } from './scheduler';

const CHANGED_WINDOW_MS = 50;

export class GroupCoordinator implements CrossFileChecks {
  readonly files = new GroupFiles();
  private readonly changedFolders = new Set<string>();
  private changedTimer: TimerHandle | undefined;

  constructor(
    private readonly ctx: ServerContext,
    private readonly schedule: (st: DocState, delay?: number) => void,
  ) {}

  /** Cross-file checks over the group of `st`: the other members of its folder, open ones as edited. */
  async check(st: DocState, isCurrent: () => boolean): Promise<Diagnostic[] | null> {
    const groups = st.kind?.groups;
    const folder = groups?.folderOf(st.path) ?? null;
    if (!groups || folder === null) return [];
    const files = await this.files.files(folder, groups.member, this.ctx.store.openTexts());
    if (!isCurrent()) return null;
    const reported = new Set(this.openMembers(folder, st.kind).map((o) => o.path));
    reported.add(st.path);
    return groups.check(files, groupSettings(this.ctx), reported).get(st.path) ?? [];
  }

  published(st: DocState): void {
    const folder = st.kind?.groups?.folderOf(st.path);
    if (folder != null) this.changed([folder]);
  }

  /** The other files of the document's group, for features that look across them. */
  async related(st: DocState): Promise<ReadonlyMap<string, string> | undefined> {
    const g = st.kind?.groups;
    const folder = g?.folderOf(st.path);
    if (!g || folder == null) return undefined;
    return this.files.files(folder, g.member, this.ctx.store.openTexts());
  }

  /** Validates again the other open documents of the group of `st` (their cross-file checks see its change). */
  scheduleSiblings(st: DocState, delay?: number): void {
    const folder = st.kind?.groups?.folderOf(st.path);
    if (folder == null) return;
    for (const o of this.openMembers(folder, st.kind)) if (o !== st) this.schedule(o, delay);
  }

  /** A grouped document closed: its unsaved text is gone, the set reads the disk again. */
  closed(st: DocState): void {
    const folder = st.kind?.groups?.folderOf(st.path);
    if (folder == null) return;
    this.files.invalidate(st.path);
    this.scheduleSiblings(st, 0);
    this.changed([folder]);
  }

  /** Files changed on disk (file URIs from the client's watcher): re-read their groups. */
  filesChanged(uris: readonly string[]): void {
    const folders = new Set<string>();
    for (const uri of uris) {
      const p = uriToPath(uri);
      this.files.invalidate(p);
      this.files.invalidate(p, true);
      for (const k of this.ctx.registry.all()) {
        const g = k.groups;
        if (!g) continue;
        const f = g.folderOf(p);
        if (f !== null) folders.add(f);
        else if (g.isGroupFolder(p)) folders.add(p); // the folder itself
      }
    }
    this.revalidate(folders);
  }

  /** The cross-file settings changed (pages.sourceRoot): every group again. */
  settingsChanged(): void {
    for (const st of this.ctx.store.all()) if (st.kind?.groups) this.schedule(st, 0);
    this.changed(this.openFolders());
  }

  /** The workspace folders changed: forget what was read from disk, validate every group again. */
  workspaceChanged(): void {
    this.files.clear();
    this.settingsChanged();
  }

  /** The group folders of the open documents. */
  openFolders(): string[] {
    const out = new Set<string>();
    for (const st of this.ctx.store.all()) {
      const f = st.kind?.groups?.folderOf(st.path);
      if (f != null) out.add(f);
    }
    return [...out];
  }

  private revalidate(folders: Set<string>): void {
    if (folders.size === 0) return;
    const keys = new Set([...folders].map(pathKey));
    for (const st of this.ctx.store.all()) {
      const f = st.kind?.groups?.folderOf(st.path);
      if (f != null && keys.has(pathKey(f))) this.schedule(st, 0);
    }
    this.changed(folders);
  }

  /** Open documents of `kind` whose group folder is `folder`. */
  private openMembers(folder: string, kind: DocumentKind | undefined): DocState[] {
    const key = pathKey(folder);
    return [...this.ctx.store.all()].filter(
      (o) => !o.closed && o.kind === kind && kind?.groups && pathKey(kind.groups.folderOf(o.path) ?? '\u0000') === key,
    );
  }

  /** sessionOps/portAnalysisChanged, coalesced over a short window. */
  private changed(folders: Iterable<string>): void {
    for (const f of folders) this.changedFolders.add(f);
    if (this.changedFolders.size === 0 || this.changedTimer) return;
    this.changedTimer = systemClock.setTimeout(() => {
      this.changedTimer = undefined;
      const folders = [...this.changedFolders].sort();
      this.changedFolders.clear();
      void this.ctx.connection.sendNotification(PortAnalysisChangedNotification, { folders });
    }, CHANGED_WINDOW_MS);
  }
}

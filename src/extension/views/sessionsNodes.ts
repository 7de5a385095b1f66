// The nodes of the Sessions view: backend > directory > session (sub-agent sessions under their
// parent), with a message row where there is nothing else to show. Each node object is kept by
// its id (core/keys), so a refresh of one element finds the same object again.
import { truncationWarning } from '../../core/backend/client';
import type { BackendConfig } from '../../core/config/backends';
import { directoryKey, joinKey, nodeId, rowKey, rowKeyOfNode, sessionNodeId } from '../../core/keys';
import type { SessionRow } from '../../core/monitor/row';
import type { FleetSource } from '../../core/monitor/fleet-source';
import type { BackendState, DirectoryState } from '../../core/monitor/sessionMonitor';

export type SessionsNode =
  | { kind: 'backend'; key: string; backend: BackendConfig }
  | { kind: 'directory'; key: string; backend: BackendConfig; directory: string }
  | { kind: 'session'; key: string; backend: BackendConfig; directory: string; sessionId: string }
  | { kind: 'message'; key: string; backend: BackendConfig; text: string; error: boolean; warning?: boolean };

export class SessionsNodes {
  private readonly nodes = new Map<string, SessionsNode>();
  /** Row keys of sessions that have sub-agent sessions, for the monitor's rows array it was built from. */
  private parents: { rows: readonly SessionRow[]; keys: Set<string> } | null = null;
  /** The backends the root last listed. */
  private rootKeys = '';

  constructor(private readonly monitor: FleetSource) {}

  get(id: string): SessionsNode | undefined {
    return this.nodes.get(id);
  }

  /** The node of a session row, if it was handed out. */
  session(rowKeyOf: string): SessionsNode | undefined {
    return this.nodes.get(sessionNodeId(rowKeyOf));
  }

  backend(key: string): SessionsNode | undefined {
    return this.nodes.get(nodeId('backend', key));
  }

  /** The row a session node shows, as the monitor reads it now. */
  row(node: SessionsNode): SessionRow | undefined {
    // The monitor's index, rebuilt only after its rows changed (not per change event here).
    const key = node.kind === 'session' ? rowKeyOfNode(node.key) : null;
    return key === null ? undefined : this.monitor.row(key);
  }

  /** Whether the set of backends changed since the root was last listed. */
  backendsChanged(): boolean {
    return this.rootKeys !== this.backendKeys();
  }

  private backendKeys(): string {
    return joinKey(...this.monitor.backends().map((b) => b.config.key));
  }

  /** Whether the session has sub-agent sessions (rebuilt only when the monitor's rows changed). */
  hasChildren(row: SessionRow): boolean {
    const rows = this.monitor.rows();
    if (this.parents?.rows !== rows) {
      this.parents = {
        rows,
        keys: new Set(rows.filter((r) => r.parentId).map((r) => rowKey(r.backendKey, r.directory, r.parentId!))),
      };
    }
    return this.parents.keys.has(row.key);
  }

  /** Drops the nodes of sessions no longer listed; gives the ids dropped. */
  forgetGone(): string[] {
    const gone: string[] = [];
    let live: Set<string> | null = null;
    for (const key of this.nodes.keys()) {
      const shown = rowKeyOfNode(key);
      if (shown === null) continue;
      live ??= new Set(this.monitor.rows().map((r) => r.key));
      if (!live.has(shown)) {
        this.nodes.delete(key);
        gone.push(key);
      }
    }
    return gone;
  }

  private node<T extends SessionsNode>(n: T): T {
    const existing = this.nodes.get(n.key) as T | undefined;
    if (existing) {
      Object.assign(existing, n);
      return existing;
    }
    this.nodes.set(n.key, n);
    return n;
  }

  children(node?: SessionsNode): SessionsNode[] {
    if (!node) {
      this.rootKeys = this.backendKeys();
      return this.monitor
        .backends()
        .map((b) => this.node({ kind: 'backend', key: nodeId('backend', b.config.key), backend: b.config }));
    }
    const state = this.monitor.backend(node.backend.key);
    if (!state) return [];
    if (node.kind === 'backend') return this.backendChildren(state);
    if (node.kind === 'directory') {
      const dir = state.directories.find((d) => d.directory === node.directory);
      return dir ? this.directoryChildren(state, dir) : [];
    }
    if (node.kind === 'session') {
      // Sub-agent sessions live under their parent, not beside it as separate workers.
      const dir = state.directories.find((d) => d.directory === node.directory);
      return (dir?.rows ?? [])
        .filter((r) => r.parentId === node.sessionId)
        .map((r) => this.sessionNode(state, node.directory, r));
    }
    return [];
  }

  parent(node: SessionsNode): SessionsNode | undefined {
    if (node.kind === 'backend') return undefined;
    const backendNode = this.backend(node.backend.key);
    if (node.kind === 'session') {
      const parentId = this.row(node)?.parentId;
      const parent = parentId ? this.session(rowKey(node.backend.key, node.directory, parentId)) : undefined;
      if (parent) return parent;
      const state = this.monitor.backend(node.backend.key);
      if (state && state.directories.length > 1)
        return this.nodes.get(nodeId('directory', directoryKey(node.backend.key, node.directory)));
    }
    return backendNode;
  }

  private sessionNode(state: BackendState, directory: string, r: SessionRow): SessionsNode {
    return this.node({ kind: 'session', key: sessionNodeId(r.key), backend: state.config, directory, sessionId: r.id });
  }

  private message(
    kind: 'backendError' | 'loading' | 'noSessions' | 'truncated',
    key: string,
    backend: BackendConfig,
    text: string,
    look: { error: boolean; warning?: boolean },
  ): SessionsNode {
    return this.node({ kind: 'message', key: nodeId(kind, key), backend, text, ...look });
  }

  private backendChildren(state: BackendState): SessionsNode[] {
    const backend = state.config;
    if (state.status === 'error')
      return [this.message('backendError', backend.key, backend, state.error ?? 'cannot be read', { error: true })];
    if (state.status === 'loading' && state.directories.every((d) => d.rows.length === 0)) {
      const text = this.monitor.isActive ? 'Reading sessions...' : 'Not sampled yet (open the view to start)';
      return [this.message('loading', backend.key, backend, text, { error: false })];
    }
    if (state.directories.length === 1) return this.directoryChildren(state, state.directories[0]);
    return state.directories.map((d) =>
      this.node({
        kind: 'directory',
        key: nodeId('directory', directoryKey(backend.key, d.directory)),
        backend,
        directory: d.directory,
      }),
    );
  }

  private directoryChildren(state: BackendState, dir: DirectoryState): SessionsNode[] {
    const backend = state.config;
    const key = directoryKey(backend.key, dir.directory);
    if (dir.error) return [this.message('backendError', key, backend, dir.error, { error: true })];
    if (dir.rows.length === 0) return [this.message('noSessions', key, backend, 'No sessions', { error: false })];
    const ids = new Set(dir.rows.map((r) => r.id));
    const sessions = dir.rows
      .filter((r) => !r.parentId || !ids.has(r.parentId))
      .map((r) => this.sessionNode(state, dir.directory, r));
    // More sessions listed than are sampled per directory per round: said first, not hidden.
    if (!dir.truncated) return sessions;
    const warning = truncationWarning(dir.truncated);
    return [this.message('truncated', key, backend, warning, { error: false, warning: true }), ...sessions];
  }
}

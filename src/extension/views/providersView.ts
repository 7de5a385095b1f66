// The Providers view (sessionOps.providers): per backend, the connected providers and every
// provider with a quota mark: connected or not, cooldown since markedAt, the reset time (local
// time and a countdown, "unknown" when absent), and the moment all are free. Provider options
// never reach this layer (the client drops them on read).
import { TIMING } from '../../core/settings/timing';
import * as vscode from 'vscode';
import { nodeId } from '../../core/keys';
import { Ticker } from '../../core/timing';
import { RecyclingTreeView } from './recyclingTreeView';
import { ago, localTime, until } from '../../core/monitor/present';
import type { FleetSource } from '../../core/monitor/fleet-source';
import type { BackendState } from '../../core/monitor/sessionMonitor';
import type { ProviderRecord } from '../../core/model';
import { providerSpendText } from '../../core/cost/present';

const COUNTDOWN_MS = TIMING.providersCountdownMs;

export type ProvidersNode =
  | { kind: 'backend'; key: string; backendKey: string }
  | { kind: 'provider'; key: string; backendKey: string; providerId: string }
  | { kind: 'allFree'; key: string; backendKey: string }
  | { kind: 'message'; key: string; backendKey: string; text: string; error: boolean };

/** Connected providers and any with a quota mark, marked ones first. */
export function visibleProviders(state: BackendState): ProviderRecord[] {
  const list = state.providers?.providers ?? [];
  return list
    .filter((p) => p.connected || p.quota)
    .sort((a, b) => Number(Boolean(b.quota)) - Number(Boolean(a.quota)) || a.id.localeCompare(b.id));
}

export class ProvidersView implements vscode.TreeDataProvider<ProvidersNode>, vscode.Disposable {
  private readonly changeEmitter = new vscode.EventEmitter<ProvidersNode | undefined>();
  readonly onDidChangeTreeData = this.changeEmitter.event;
  readonly treeView: RecyclingTreeView<ProvidersNode>;
  private readonly disposables: vscode.Disposable[] = [this.changeEmitter];
  private readonly countdown = new Ticker(COUNTDOWN_MS, () => this.refresh());
  /** Each backend's spend as last rendered (the monitor replaces it when a round spent something). */
  private readonly spendShown = new Map<string, BackendState['spend']>();

  constructor(private readonly monitor: FleetSource) {
    this.treeView = new RecyclingTreeView('sessionOps.providers', { treeDataProvider: this });
    this.disposables.push(this.treeView);
    const off = monitor.onDidChange((c) => {
      if (c.providers || c.structural.length > 0 || (c.rows.length > 0 && this.spendChanged())) this.refresh();
    });
    this.disposables.push({ dispose: off });
    // Countdowns tick while the view is visible.
    this.disposables.push(
      this.treeView.onDidChangeVisibility((e) => {
        if (e.visible) this.countdown.start();
        else this.countdown.stop();
      }),
    );
  }

  refresh(): void {
    this.changeEmitter.fire(undefined);
  }

  /** Whether a backend's spend changed since the view was last rendered (records it as rendered). */
  private spendChanged(): boolean {
    let changed = false;
    for (const b of this.monitor.backends()) {
      if (this.spendShown.get(b.config.key) === b.spend) continue;
      this.spendShown.set(b.config.key, b.spend);
      changed = true;
    }
    return changed;
  }

  getChildren(node?: ProvidersNode): ProvidersNode[] {
    const backends = this.monitor.backends();
    if (!node) {
      if (backends.length === 1) return this.backendChildren(backends[0]);
      return backends.map((b) => ({
        kind: 'backend',
        key: nodeId('providerBackend', b.config.key),
        backendKey: b.config.key,
      }));
    }
    if (node.kind !== 'backend') return [];
    const state = this.monitor.backend(node.backendKey);
    return state ? this.backendChildren(state) : [];
  }

  private backendChildren(state: BackendState): ProvidersNode[] {
    const k = state.config.key;
    if (state.providersError && !state.providers)
      return [
        { kind: 'message', key: nodeId('providersError', k), backendKey: k, text: state.providersError, error: true },
      ];
    if (!state.providers)
      return [
        {
          kind: 'message',
          key: nodeId('providersLoading', k),
          backendKey: k,
          text: state.status === 'error' ? (state.error ?? 'cannot be read') : 'Reading providers...',
          error: state.status === 'error',
        },
      ];
    const out: ProvidersNode[] = [];
    if (state.providers.providers.some((p) => p.quota))
      out.push({ kind: 'allFree', key: nodeId('allFree', k), backendKey: k });
    for (const p of visibleProviders(state))
      out.push({ kind: 'provider', key: nodeId('provider', k, p.id), backendKey: k, providerId: p.id });
    if (out.length === 0)
      out.push({
        kind: 'message',
        key: nodeId('noProvider', k),
        backendKey: k,
        text: 'No connected provider',
        error: true,
      });
    return out;
  }

  getTreeItem(node: ProvidersNode): vscode.TreeItem {
    this.treeView.itemCreated();
    const state = this.monitor.backend(node.backendKey);
    const now = this.monitor.clock.now();
    switch (node.kind) {
      case 'backend': {
        const item = new vscode.TreeItem(
          state?.config.name ?? node.backendKey,
          vscode.TreeItemCollapsibleState.Expanded,
        );
        item.id = node.key;
        item.iconPath = new vscode.ThemeIcon('server');
        item.description = state?.config.baseUrl;
        return item;
      }
      case 'message': {
        const item = new vscode.TreeItem(node.text);
        item.id = node.key;
        item.iconPath = new vscode.ThemeIcon(
          node.error ? 'error' : 'info',
          node.error ? new vscode.ThemeColor('errorForeground') : undefined,
        );
        return item;
      }
      case 'allFree': {
        const at = state?.allFreeAt ?? null;
        const item = new vscode.TreeItem(at !== null ? `All free at ${localTime(at)}` : 'All free: unknown');
        item.id = node.key;
        item.description = at !== null ? until(at, now) : 'a marked provider has no reset time (or needs a top-up)';
        item.iconPath = new vscode.ThemeIcon('watch');
        item.contextValue = 'all-free';
        return item;
      }
      case 'provider': {
        const p = state?.providers?.providers.find((x) => x.id === node.providerId);
        const item = new vscode.TreeItem(
          p?.name && p.name !== node.providerId ? `${p.name} (${node.providerId})` : node.providerId,
        );
        item.id = node.key;
        if (!p) return item;
        const bits: string[] = [p.connected ? 'connected' : 'not connected'];
        if (p.quota) {
          bits.push(`cooling down since ${ago(p.quota.markedAt, now).replace(' ago', '')}`);
          if (p.quota.category === 'balance') bits.push('balance: needs top-up');
          else
            bits.push(
              p.quota.resetAt !== null
                ? `resets ${localTime(p.quota.resetAt)} (${until(p.quota.resetAt, now)})`
                : 'reset unknown',
            );
          item.iconPath = new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('charts.orange'));
        } else {
          item.iconPath = new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed'));
        }
        const spent = providerSpendText(state?.spend, node.providerId);
        if (spent) bits.push(spent);
        item.description = bits.join(' · ');
        item.contextValue = [
          'provider',
          p.connected ? 'connected' : 'disconnected',
          p.quota ? 'quota-mark' : 'free',
        ].join(' ');
        const tip = new vscode.MarkdownString();
        tip.appendText(`${node.providerId}: ${bits.join(', ')}`);
        if (p.quota) tip.appendText(`\nmarked at ${localTime(p.quota.markedAt)}`);
        if (p.models.length) tip.appendText(`\n${p.models.length} model${p.models.length === 1 ? '' : 's'}`);
        item.tooltip = tip;
        return item;
      }
    }
  }

  dispose(): void {
    this.countdown.stop();
    for (const d of this.disposables) d.dispose();
  }
}

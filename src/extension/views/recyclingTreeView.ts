// A vscode.TreeView that is disposed and created anew under the same id once it has handed VS Code
// many tree items, so that a view refreshed for hours keeps its memory flat.
//
// Why: VS Code's extension host (1.100, and upstream's extHostTreeViews.ts as read on 2026-11-23)
// registers one DisposableStore per tree item it creates on the TreeView itself
// (`_createTreeNode`: `this._register(new DisposableStore())`) and never removes it when the item
// is refreshed or dropped: about 170 bytes stay reachable for every getTreeItem call until the
// TreeView is disposed. At 1,000 sessions whose rows change every round that is ~10 MB an hour.
// Disposing the TreeView frees all of them; this wrapper does so while the view is hidden (no one
// sees it) once `budget.hidden` items were created, and while it is visible only past
// `budget.visible` (a single full re-render; expansion and selection are kept).
import { TIMING } from '../../core/settings/timing';
import * as vscode from 'vscode';
import { systemClock } from '../../core/clock';
import { Coalesce } from '../../core/timing';

export interface RecycleBudget {
  /** Items created since the view was made, past which a hidden view is recycled. */
  readonly hidden: number;
  /** The same for a visible view (recycling re-renders the whole tree once). */
  readonly visible: number;
}

/** About 0.3 MB and 4.3 MB of VS Code's retained stores (~170 bytes per item). A hidden view is re-rendered in full when shown anyway. */
export const DEFAULT_RECYCLE_BUDGET: RecycleBudget = { hidden: 2_000, visible: 25_000 };

const VISIBILITY_GRACE_MS = TIMING.treeVisibilityGraceMs;
const RECYCLE_DELAY_MS = TIMING.treeRecycleDelayMs;

export class RecyclingTreeView<T> implements vscode.Disposable {
  private view: vscode.TreeView<T>;
  private viewListeners: vscode.Disposable[] = [];
  private readonly visibilityEmitter = new vscode.EventEmitter<vscode.TreeViewVisibilityChangeEvent>();
  private readonly expansionEmitter = new vscode.EventEmitter<{ element: T; expanded: boolean }>();
  /** Visibility changes, deduplicated across recycling (a new view reporting "visible" again is not a change). */
  readonly onDidChangeVisibility = this.visibilityEmitter.event;
  /** The user expanded or collapsed an element (so a recycled view can render it the same way). */
  readonly onDidChangeExpansion = this.expansionEmitter.event;
  private lastVisible = false;
  /** Until this time, a freshly created view's `visible` (false until the workbench says) is not trusted. */
  private trustVisibleAfter = 0;
  private badgeValue: vscode.ViewBadge | undefined;
  private itemsCreated = 0;
  private recycling: Promise<void> | null = null;
  /** Never in the middle of VS Code fetching children: a moment later. */
  private readonly recycleSoon = new Coalesce(RECYCLE_DELAY_MS, () => this.recycleIfDue());
  private disposed = false;
  /** How many times the view was recycled, and items handed out over its life (tests, benches). */
  recycledCount = 0;
  totalItemsCreated = 0;
  budget: RecycleBudget;

  constructor(
    private readonly viewId: string,
    private readonly options: vscode.TreeViewOptions<T>,
    budget: RecycleBudget = DEFAULT_RECYCLE_BUDGET,
  ) {
    this.budget = budget;
    this.view = this.create();
    this.lastVisible = this.view.visible;
  }

  private create(): vscode.TreeView<T> {
    const view = vscode.window.createTreeView(this.viewId, this.options);
    this.viewListeners = [
      view.onDidChangeVisibility((e) => this.visibilityChanged(e.visible)),
      view.onDidExpandElement((e) => this.expansionEmitter.fire({ element: e.element, expanded: true })),
      view.onDidCollapseElement((e) => this.expansionEmitter.fire({ element: e.element, expanded: false })),
    ];
    if (this.badgeValue) view.badge = this.badgeValue;
    return view;
  }

  private visibilityChanged(visible: boolean): void {
    this.trustVisibleAfter = 0;
    if (visible === this.lastVisible) return;
    this.lastVisible = visible;
    this.visibilityEmitter.fire({ visible });
    if (!visible) this.recycleIfDue();
  }

  get visible(): boolean {
    return systemClock.now() < this.trustVisibleAfter ? this.lastVisible : this.view.visible;
  }

  get badge(): vscode.ViewBadge | undefined {
    return this.badgeValue;
  }

  set badge(badge: vscode.ViewBadge | undefined) {
    this.badgeValue = badge;
    this.view.badge = badge;
  }

  get selection(): readonly T[] {
    return this.view.selection;
  }

  /** Items handed to VS Code since the view was created (each costs it ~170 bytes until then). */
  get itemsSinceCreated(): number {
    return this.itemsCreated;
  }

  async reveal(element: T, options?: { select?: boolean; focus?: boolean; expand?: boolean | number }): Promise<void> {
    if (this.recycling) await this.recycling;
    await this.view.reveal(element, options);
  }

  /** Call from getTreeItem: one more item VS Code keeps a store for. */
  itemCreated(): void {
    this.itemsCreated++;
    this.totalItemsCreated++;
    if (this.itemsCreated > Math.min(this.budget.hidden, this.budget.visible) && !this.recycling)
      this.recycleSoon.trigger();
  }

  private recycleIfDue(): void {
    if (this.disposed || this.recycling) return;
    const limit = this.visible ? this.budget.visible : this.budget.hidden;
    if (this.itemsCreated <= limit) return;
    this.recycling = this.recycle().finally(() => {
      this.recycling = null;
    });
  }

  /** Disposes the TreeView and creates it anew under the same id, keeping visibility, badge and selection. */
  private async recycle(): Promise<void> {
    const old = this.view;
    const selected = old.selection[0];
    const wasVisible = this.visible;
    for (const d of this.viewListeners) d.dispose();
    // The extension host's dispose is asynchronous: it drops the view from its registry after a
    // tick, and a view created before that under the same id would be dropped instead.
    await Promise.resolve(old.dispose() as unknown);
    await systemClock.sleep(0);
    if (this.disposed) return;
    this.itemsCreated = 0;
    this.recycledCount++;
    this.lastVisible = wasVisible;
    this.trustVisibleAfter = systemClock.now() + VISIBILITY_GRACE_MS;
    this.view = this.create();
    if (selected !== undefined && wasVisible) {
      await this.view.reveal(selected, { select: true, focus: false }).then(undefined, () => undefined);
    }
  }

  dispose(): void {
    this.disposed = true;
    this.recycleSoon.cancel();
    for (const d of this.viewListeners) d.dispose();
    this.view.dispose();
    this.visibilityEmitter.dispose();
    this.expansionEmitter.dispose();
  }
}

// The window's whole fleet: the backends its session monitor samples, then those of each attached
// daemon (sessionOps.daemons), read from the daemon's API and never sampled here. The views, the
// status bar and the commands read this; the operator (and so automatic mode) is handed only the
// monitor, so it is never given an attached row: the daemon acts on its own fleet. With no daemon
// attached every read is the monitor's own (no copy). Never imports 'vscode'.
import type { Clock } from '../clock';
import type { DaemonConfig } from '../config/daemons';
import type { FleetSource } from '../monitor/fleet-source';
import type { SessionRow } from '../monitor/row';
import type { SessionMonitor } from '../monitor/sessionMonitor';
import type { BackendState, MonitorChange, Transition } from '../monitor/types';
import type { AttachedDaemon } from './attached-daemon';

/** Builds an attached daemon that reports its changes to the union. */
export type AttachedDaemonFactory = (
  config: DaemonConfig,
  hooks: { onChange: (c: MonitorChange) => void; onTransition: (t: Transition) => void },
) => AttachedDaemon;

export class FleetUnion implements FleetSource {
  private daemons = new Map<string, AttachedDaemon>();
  private readonly listeners = new Set<(c: MonitorChange) => void>();
  private readonly transitionListeners = new Set<(t: Transition) => void>();
  private active = false;
  private cache: { monitorRows: SessionRow[]; rows: SessionRow[] } | null = null;
  private index: Map<string, SessionRow> | null = null;
  private attachedStates: BackendState[] | null = null;
  private readonly off: Array<() => void>;

  constructor(
    readonly monitor: SessionMonitor,
    private readonly factory: AttachedDaemonFactory,
  ) {
    this.off = [
      monitor.onDidChange((c) => this.emit(c, false)),
      monitor.onTransition((t) => {
        for (const l of this.transitionListeners) l(t);
      }),
    ];
  }

  get clock(): Clock {
    return this.monitor.clock;
  }

  get isActive(): boolean {
    return this.monitor.isActive || (this.active && this.daemons.size > 0);
  }

  /** The attached daemons (sessionOps.daemons): keeps those that stay, stops the others. */
  setDaemons(configs: readonly DaemonConfig[]): void {
    const next = new Map<string, AttachedDaemon>();
    for (const c of configs) {
      const old = this.daemons.get(c.key);
      if (old && old.config.name === c.name) {
        next.set(c.key, old);
        continue;
      }
      old?.stop();
      const d = this.factory(c, {
        onChange: (change) => {
          if (this.daemons.get(c.key) === d) this.emit(change, true);
        },
        onTransition: (t) => {
          if (this.daemons.get(c.key) !== d) return;
          for (const l of this.transitionListeners) l(t);
        },
      });
      next.set(c.key, d);
      if (this.active) d.start();
    }
    for (const [key, d] of this.daemons) if (!next.has(key)) d.stop();
    const before = this.attachedKeys();
    this.daemons = next;
    this.attachedStates = null;
    this.emit({ structural: [...before, ...this.attachedKeys()], rows: [], providers: true }, true);
  }

  attachedDaemons(): AttachedDaemon[] {
    return [...this.daemons.values()];
  }

  /** The daemon a backend key (a row's backendKey) belongs to, or undefined for a sampled backend. */
  daemonOf(backendKey: string): AttachedDaemon | undefined {
    for (const d of this.daemons.values()) if (d.backends().some((b) => b.config.key === backendKey)) return d;
    return undefined;
  }

  /** Attached daemons read only while someone looks (as the monitor samples only then). */
  setActive(active: boolean): void {
    if (active === this.active) return;
    this.active = active;
    for (const d of this.daemons.values()) {
      if (active) d.start();
      else d.stop();
    }
  }

  /** Connects to a daemon afresh (its token changed, or Retry on its row). */
  restart(daemonKey: string): void {
    const d = this.daemons.get(daemonKey);
    if (d && this.active) d.restart();
  }

  private attachedKeys(): string[] {
    return this.attached().map((b) => b.config.key);
  }

  private attached(): BackendState[] {
    this.attachedStates ??= [...this.daemons.values()].flatMap((d) => [...d.backends()]);
    return this.attachedStates;
  }

  backends(): readonly BackendState[] {
    if (this.daemons.size === 0) return this.monitor.backends();
    return [...this.monitor.backends(), ...this.attached()];
  }

  backend(key: string): BackendState | undefined {
    return this.monitor.backend(key) ?? this.attached().find((b) => b.config.key === key);
  }

  rows(): SessionRow[] {
    const own = this.monitor.rows();
    if (this.daemons.size === 0) return own;
    if (this.cache?.monitorRows !== own) {
      const attached = this.attached().flatMap((b) => b.directories.flatMap((d) => d.rows));
      this.cache = { monitorRows: own, rows: attached.length ? [...own, ...attached] : own };
      this.index = null;
    }
    return this.cache.rows;
  }

  row(key: string): SessionRow | undefined {
    const own = this.monitor.row(key);
    if (own || this.daemons.size === 0) return own;
    const rows = this.rows();
    if (!this.index || this.index.size === 0) this.index = new Map(rows.map((r) => [r.key, r]));
    return this.index.get(key);
  }

  onDidChange(listener: (c: MonitorChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onTransition(listener: (t: Transition) => void): () => void {
    this.transitionListeners.add(listener);
    return () => this.transitionListeners.delete(listener);
  }

  private emit(change: MonitorChange, attached: boolean): void {
    if (attached) {
      this.attachedStates = null;
      this.cache = null;
      this.index = null;
    } else if (this.cache) {
      this.cache = null;
      this.index = null;
    }
    for (const l of this.listeners) l(change);
  }

  dispose(): void {
    for (const off of this.off) off();
    for (const d of this.daemons.values()) d.stop();
    this.daemons.clear();
    this.listeners.clear();
    this.transitionListeners.clear();
  }
}

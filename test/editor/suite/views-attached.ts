// The attached mode of the views benchmark (bench/views.mjs, issue 33), inside the extension host:
// the window attached to a real `session-ops watch` that the bench starts over the same fleet
// (POST {control}attach answers its url and a token; POST {control}rounds the daemon's rounds of a
// directory so far, read by the bench from its /metrics; POST {control}detach stops it and answers
// the backends' requests by reading process), the Sessions view visible, nothing sampled here.
// The daemon samples each backend on its own schedule, so its events come in bursts: each burst is
// measured like a sampled round's window (from the 5 ms tick before its first event to 500 ms after
// its last event and tree item), over a span of `rounds` daemon spacings; CPU per round = the
// bursts' CPU over the fleet rounds the daemon made in the span (its directory rounds / backends).
import { strict as assert } from 'node:assert';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { SessionOpsApi } from '../../../src/extension/extension';
import { waitFor } from './harness';

export interface AttachedBench {
  control: string;
  backends: number;
  perBackend: number;
  /** The daemon's sampleSpacingSeconds. */
  spacingS: number;
}

export interface AttachedContext {
  api: SessionOpsApi;
  /** The Sessions view's instrumented tree provider (views.bench.ts). */
  tree: { items: number; itemMs: number; lastItemAt: number };
  setting: (key: string, value: unknown) => Thenable<void>;
  idleCpu: (ms: number) => Promise<number>;
  startProfile: () => Promise<{ stop: (file: string) => Promise<void> }>;
  smoke: boolean;
  rounds: number;
}

interface Burst {
  cpuMs: number;
  windowMs: number;
  wallMs: number;
  maxBlockMs: number;
  events: number;
  treeItems: number;
  treeItemMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const DELAY_RESOLUTION_MS = 10;
const QUIET_MS = 500;

/**
 * One attached pass (a daemon of its own). `coalesceMs`: the window's coalescing of the event
 * stream's changes for this pass (0: one change per event, the build before; null: the default).
 */
export async function attachedRun(
  bench: AttachedBench,
  ctx: AttachedContext,
  coalesceMs: number | null = null,
): Promise<Record<string, unknown>> {
  const started = performance.now();
  await vscode.commands.executeCommand('sessionOps.test.configureMonitor', { daemonCoalesceMs: coalesceMs });
  const n = bench.backends * bench.perBackend;
  await ctx.setting('backends', undefined);
  await vscode.commands.executeCommand('sessionOps.sessions.focus');
  await waitFor('the Sessions view visible', () => ctx.api.sessions.treeView.visible, 30_000);
  const control = async (what: 'attach' | 'rounds' | 'detach') => {
    const res = await fetch(new URL(what, bench.control), { method: 'POST' });
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(res.status, 200, `${what}: ${JSON.stringify(body)}`);
    return body;
  };
  const daemon = (await control('attach')) as { url: string; token: string };
  let detached = false;
  try {
    await vscode.commands.executeCommand('sessionOps.test.setDaemonToken', daemon.url, daemon.token);
    await ctx.setting('daemons', [{ url: daemon.url, name: coalesceMs === 0 ? 'bench-per-event' : 'bench' }]);
    const attached = await waitFor('the daemon attached', () => ctx.api.fleet.attachedDaemons()[0], 30_000, 10);
    const attachedRows = () =>
      attached.backends().reduce((k, b) => k + b.directories.reduce((j, d) => j + d.rows.length, 0), 0);
    await waitFor(`${n} attached rows`, () => attachedRows() === n || null, 120_000, 50);
    assert.equal(ctx.api.monitor.rows().length, 0, 'the window samples nothing of its own');
    let lastEventAt = 0;
    let seen = attached.counts.events;
    const watcher = setInterval(() => {
      if (attached.counts.events !== seen) {
        seen = attached.counts.events;
        lastEventAt = performance.now();
      }
    }, 5);
    const quiet = async () => {
      while (performance.now() - Math.max(lastEventAt, ctx.tree.lastItemAt) < QUIET_MS) await sleep(25);
    };
    /** The next burst of events (null when none starts before `deadline`), measured to its quiet end. */
    const burst = async (deadline: number): Promise<Burst | null> => {
      const e0 = attached.counts.events;
      ctx.tree.items = 0;
      ctx.tree.itemMs = 0;
      let c0 = process.cpuUsage();
      let t0 = performance.now();
      const began = await new Promise<boolean>((resolve) => {
        const tick = setInterval(() => {
          if (attached.counts.events > e0) {
            clearInterval(tick);
            resolve(true);
          } else if (performance.now() > deadline) {
            clearInterval(tick);
            resolve(false);
          } else {
            c0 = process.cpuUsage();
            t0 = performance.now();
          }
        }, 5);
      });
      if (!began) return null;
      const delay = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
      delay.enable();
      await quiet();
      const cpu = process.cpuUsage(c0);
      delay.disable();
      return {
        cpuMs: (cpu.user + cpu.system) / 1000,
        windowMs: performance.now() - t0,
        wallMs: Math.max(lastEventAt, ctx.tree.lastItemAt) - t0,
        maxBlockMs: Math.max(0, delay.max / 1e6 - DELAY_RESOLUTION_MS),
        events: attached.counts.events - e0,
        treeItems: ctx.tree.items,
        treeItemMs: ctx.tree.itemMs,
      };
    };
    try {
      // Settle: the daemon's first rounds (verdicts need a baseline) reach the window.
      const settleUntil = performance.now() + (ctx.smoke ? 1 : 2) * bench.spacingS * 1000;
      while (performance.now() < settleUntil) await burst(settleUntil);
      await quiet();
      const idle = await ctx.idleCpu(ctx.smoke ? 300 : 1_000);
      const profiler = process.env.SESSION_OPS_BENCH_PROFILE ? await ctx.startProfile() : null;
      const r0 = (await control('rounds')).rounds as number;
      const e0 = attached.counts.events;
      const spanEnd = performance.now() + ctx.rounds * bench.spacingS * 1000;
      const bursts: Burst[] = [];
      for (;;) {
        const b = await burst(spanEnd);
        if (!b) break;
        bursts.push(b);
      }
      const r1 = (await control('rounds')).rounds as number;
      if (profiler) await profiler.stop('bench-views-attached.cpuprofile');
      const rounds = (r1 - r0) / bench.backends;
      assert.ok(rounds > 0, `the daemon made no round in the span (${r0} -> ${r1} directory rounds)`);
      const sum = (key: keyof Burst) => bursts.reduce((k, b) => k + b[key], 0);
      const report = await control('detach');
      detached = true;
      return {
        n,
        backends: bench.backends,
        coalesceMs,
        rounds,
        bursts,
        perRound: {
          cpuMs: sum('cpuMs') / rounds,
          windowMs: sum('windowMs') / rounds,
          wallMs: sum('wallMs') / rounds,
          maxBlockMs: Math.max(0, ...bursts.map((b) => b.maxBlockMs)),
          changedRows: (attached.counts.events - e0) / rounds,
          treeItems: sum('treeItems') / rounds,
        },
        idleCpuMsPerS: idle,
        counts: { ...attached.counts },
        rows: attachedRows(),
        readers: report,
        elapsedMs: performance.now() - started,
      };
    } finally {
      clearInterval(watcher);
    }
  } finally {
    if (!detached) await control('detach').catch(() => undefined);
    await ctx.setting('daemons', undefined);
    await vscode.commands.executeCommand('sessionOps.test.configureMonitor', { daemonCoalesceMs: null });
    await sleep(300);
  }
}

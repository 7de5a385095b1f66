// Runs a generated fleet through the real core: the spec-dialect test server (real HTTP; every
// request it gets is recorded with the virtual time, the cycle and the phase it came in), the
// real BackendClient and SessionMonitor (samples -> verdict -> action -> rows), and the real
// Operator (automatic policy, actions, guard, re-verify, scheduled retries) on one virtual time.
// Each cycle samples twice, 45 s apart: phase A (one fresh snapshot: the previous cycle's samples
// are 25 min old, too old to be a baseline) and phase B (a verdict); automatic mode acts on what
// the monitor announces. In the last cycle a person clicks what the fleet says (phase `hand`);
// between cycles 25 min pass and scheduled retries fire (phase `retry`). The trace is plain data
// the invariants (./invariants.ts) read.
import { BackendClient } from '../../../src/core/backend/client';
import { parseRowKey } from '../../../src/core/keys';
import { parseBackendConfigs } from '../../../src/core/config/backends';
import { SessionMonitor } from '../../../src/core/monitor/sessionMonitor';
import type { SessionRow } from '../../../src/core/monitor/row';
import { Operator } from '../../../src/core/operations/operator';
import type { ActionOutcome } from '../../../src/core/operations/action-outcome';
import { ProcessSessionLocker } from '../../../src/core/state/session-locker';
import { QUALIFIES } from '../../../src/core/operations/targets';
import { monitorSettings, operatorDefaults, type OperatorSettings } from '../../../src/core/settings/operator-settings';
import type { MessageInit, SpecProvider, SpecServer } from '../spec-server';
import type { Fleet, ResetKind, SessionSpec } from './arbitraries';
import { ManualClock } from '../manual-clock';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
/** The run's start (virtual). */
export const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);
export const SPACING_MS = 45_000;
export const CYCLE_GAP_MS = 25 * MINUTE;
export const ORCHESTRATOR = 'ses_orchestrator1';
export const TICKET = 'PROJ-12';

export type Phase = 'A' | 'B' | 'hand' | 'retry';
export type RequestKind = 'list' | 'message' | 'provider' | 'abort' | 'prompt' | 'other';

export interface TraceRequest {
  seq: number;
  method: string;
  path: string;
  query: Record<string, string>;
  kind: RequestKind;
  sessionId: string | null;
  /** prompt_async: the payload as sent. */
  payload?: { agent?: string; model?: { providerID?: string; modelID?: string }; parts?: Array<{ text?: string }> };
  vt: number;
  cycle: number;
  phase: Phase;
}

export interface TraceOutcome {
  outcome: ActionOutcome;
  /** Requests with seq in (startSeq, endSeq] were made while it ran. */
  startSeq: number;
  endSeq: number;
  vt: number;
  cycle: number;
  phase: Phase;
}

export interface RowView {
  id: string;
  verdict: SessionRow['verdict'];
  action: SessionRow['action'];
  waitUntil: number | null;
  wallProvider: string | null;
}

export interface Trace {
  fleet: Fleet;
  ids: string[];
  requests: TraceRequest[];
  outcomes: TraceOutcome[];
  rows: Array<{ cycle: number; phase: Phase; vt: number; rows: RowView[] }>;
  /** Retries the operator had scheduled at the end: when each fires. */
  scheduledAt: number[];
  endVt: number;
  thrown: string[];
  logs: string[];
}

let runCounter = 0;

export function resetAt(kind: ResetKind): number | undefined {
  switch (kind) {
    case 'past':
      return T0 - 30 * MINUTE;
    case 'soon':
      return T0 + 40 * MINUTE;
    case 'far':
      return T0 + 72 * HOUR;
    case 'none':
      return undefined;
  }
}

export function queuedText(token: number): string {
  return `Queued instruction Q${token}: also run the linter before you commit.`;
}

export function assignmentText(s: SessionSpec): string {
  return s.ticketed ? `Implement the CSV parser (ticket ${TICKET}).` : 'Implement the CSV parser.';
}

/** When the session's newest message was created (virtual). */
export function newestCreatedAt(s: SessionSpec): number {
  return T0 - s.ageHours * HOUR - MINUTE;
}

export const WAKE_ANSWER_TEXT = 'Resumed: part of the work is done; more to do.';
export const WAKE_ANSWER_REPORT = `ticket=${TICKET} status=done summary="finished after the wake"`;

function messageTime(at: number) {
  return { time: { created: at, completed: at } };
}

function modelInfo(s: SessionSpec): Record<string, unknown> {
  return s.lastModel ? { providerID: s.lastModel.provider, modelID: s.lastModel.model } : {};
}

/** The session's messages on the server, oldest first. */
function seedMessages(s: SessionSpec): MessageInit[] {
  const n = s.newest;
  if (n.kind === 'none') return [];
  const at = newestCreatedAt(s);
  const out: MessageInit[] = [
    { role: 'user', text: assignmentText(s), info: messageTime(at - 20 * MINUTE) },
    {
      text: 'Started: read the code and the failing test.',
      info: { ...modelInfo(s), ...messageTime(at - 10 * MINUTE) },
    },
  ];
  const info = { ...modelInfo(s), ...messageTime(at) };
  switch (n.kind) {
    case 'text':
      out.push({ text: 'I changed the parser; the tests are next.', info });
      break;
    case 'report':
      out.push({ text: `ticket=${TICKET} status=${n.status} summary="parser work reported"`, info });
      break;
    case 'malformed':
      out.push({ text: `ticket=${TICKET} status=finished summary="not a status the spec names"`, info });
      break;
    case 'queued':
      out.push({ role: 'user', text: queuedText(n.token), info: messageTime(at) });
      break;
    case 'wall': {
      const reset = resetAt(n.reset);
      out.push({
        info: { providerID: n.provider, modelID: s.lastModel?.model ?? 'm1', ...messageTime(at) },
        error: {
          text: 'Weekly usage limit reached. Try again after the reset.',
          reason: n.reason,
          provider: n.provider,
          ...(reset !== undefined ? { resetAt: reset } : {}),
        },
      });
      break;
    }
    case 'balance':
      out.push({
        info: { providerID: n.provider, modelID: s.lastModel?.model ?? 'm1', ...messageTime(at) },
        error: {
          text: 'Generation failed with HTTP 402 insufficient_quota: the credit balance is too low.',
          provider: n.provider,
        },
      });
      break;
    case 'failure':
      out.push({
        info: { providerID: n.provider, modelID: s.lastModel?.model ?? 'm1', ...messageTime(at) },
        error: { text: 'Tool execution failed: the process exited with code 1.', provider: n.provider },
      });
      break;
  }
  return out;
}

function providersOf(f: Fleet): SpecProvider[] {
  return f.providers.map((p) => {
    const out: SpecProvider = { id: p.id, models: p.models };
    if (p.quota) {
      const reset = resetAt(p.quota.reset);
      out.quota = { markedAt: T0 - p.quota.markedAgoMin * MINUTE, ...(reset !== undefined ? { resetAt: reset } : {}) };
    }
    return out;
  });
}

export function settingsOf(f: Fleet): OperatorSettings {
  return {
    ...operatorDefaults(),
    resetWithinReachMinutes: 120,
    'automatic.abortHung': f.switches.abortHung,
    'automatic.wakeIdle': f.switches.wakeIdle,
    'automatic.recoverQuotaWalls': f.switches.recoverQuotaWalls,
    // Issue 28 item 1 (branch `charge`): an unknown key until that branch lands.
    ...(f.onlyTicketed ? { 'automatic.onlyTicketed': true } : {}),
  } as OperatorSettings;
}

function requestKind(method: string, segs: string[]): RequestKind {
  if (segs.length === 1 && segs[0] === 'session') return 'list';
  if (segs.length === 1 && segs[0] === 'provider') return 'provider';
  if (segs.length === 3 && segs[0] === 'session') {
    if (method === 'GET' && segs[2] === 'message') return 'message';
    if (method === 'POST' && segs[2] === 'abort') return 'abort';
    if (method === 'POST' && segs[2] === 'prompt_async') return 'prompt';
  }
  return 'other';
}

/** Runs the fleet; the server is shared across runs (each run has a directory of its own). */
export async function runFleet(server: SpecServer, fleet: Fleet): Promise<Trace> {
  const run = ++runCounter;
  const dir = `/work/fleet/run-${run}`;
  const vt = new ManualClock(T0);
  const ids = fleet.sessions.map((_, i) => `ses_r${run}x${i}`);
  const trace: Trace = {
    fleet,
    ids,
    requests: [],
    outcomes: [],
    rows: [],
    scheduledAt: [],
    endVt: T0,
    thrown: [],
    logs: [],
  };
  let cycle = 0;
  let phase: Phase = 'A';
  let seq = 0;

  server.setProviders(providersOf(fleet), fleet.connected);
  const d = server.directory(dir);
  fleet.sessions.forEach((s, i) => {
    d.addSession({
      id: ids[i],
      state: s.state,
      title: `worker ${i}`,
      ...(s.progress ? { progress: { stepCount: 5, lastStepAt: T0 - 2 * MINUTE } } : {}),
      ...(s.parent ? { parentID: i === 0 ? `ses_r${run}gone` : ids[0] } : {}),
    });
    for (const m of seedMessages(s)) d.addMessage(ids[i], m);
  });

  server.onRequest = (record) => {
    if (record.query.directory !== dir) return;
    const segs = record.path.split('/').filter(Boolean).map(decodeURIComponent);
    const kind = requestKind(record.method, segs);
    const r: TraceRequest = {
      seq: ++seq,
      method: record.method,
      path: record.path,
      query: record.query,
      kind,
      sessionId: segs.length === 3 && segs[0] === 'session' ? segs[1] : null,
      vt: vt.now(),
      cycle,
      phase,
    };
    if (kind === 'prompt' && record.body) {
      try {
        r.payload = JSON.parse(record.body);
      } catch {
        r.payload = {};
      }
    }
    trace.requests.push(r);
  };
  // The worker answers an accepted prompt at once: unfinished text (it ends idle again without a
  // report) or a done report, on the model the prompt named.
  server.onPrompt = (record, state) => {
    if (record.directory !== dir) return;
    const i = ids.indexOf(record.sessionId);
    if (i < 0) return;
    const model = record.payload.model;
    state.addMessage(record.sessionId, {
      text: fleet.sessions[i].answer === 'report' ? WAKE_ANSWER_REPORT : WAKE_ANSWER_TEXT,
      info: { ...(model ? { providerID: model.providerID, modelID: model.modelID } : {}), ...messageTime(vt.now()) },
    });
    state.setSession(record.sessionId, { state: 'idle' });
  };

  const settings = settingsOf(fleet);
  const ms = monitorSettings(settings);
  const { backends } = parseBackendConfigs([{ baseUrl: server.url, directories: [dir] }], []);
  const monitor = new SessionMonitor({
    createClient: (config, _credentials, marks) =>
      new BackendClient({ baseUrl: config.baseUrl, clock: vt, timeoutMs: 10_000, marks }),
    getCredentials: async () => undefined,
    spacingMs: ms.spacingMs,
    resetWithinReachMs: ms.resetWithinReachMs,
    retryWaitMs: ms.retryWaitMs,
    markMaxAgeMs: ms.markMaxAgeMs,
    toolCeilingMs: ms.toolCeilingMs,
    providers: ms.providers,
    useEventStream: false,
    clock: vt,
  });
  monitor.setBackends(backends);
  const operator = new Operator({
    monitor,
    settings,
    log: (level, message) => trace.logs.push(`${level}: ${message}`),
    clock: vt,
    authority: () => ({ orchestrator: ORCHESTRATOR, ticket: null }),
    inventory: () => [],
    waits: { abortMs: 10_000, confirmMs: 10_000 },
    postLocker: new ProcessSessionLocker(5_000),
  });

  // Automatic actions started and not yet finished (row key -> the seq they started at).
  const running = new Map<string, number>();
  const lastEnd = new Map<string, number>();
  let phaseStartSeq = 0;
  let handStart: number | null = null;
  operator.onDidStartAutomatic((_action, row) => running.set(row.key, seq));
  operator.onDidAct((o) => {
    let startSeq: number;
    if (phase === 'hand' && handStart !== null && !o.automatic) startSeq = handStart;
    else if (running.has(o.rowKey)) {
      startSeq = running.get(o.rowKey)!;
      running.delete(o.rowKey);
    } else startSeq = Math.max(phaseStartSeq, lastEnd.get(o.rowKey) ?? 0);
    lastEnd.set(o.rowKey, seq);
    trace.outcomes.push({ outcome: o, startSeq, endSeq: seq, vt: vt.now(), cycle, phase });
  });
  const offLog = (message: string) => {
    // An automatic action that threw (logged as an error): it is over.
    for (const key of running.keys()) {
      const id = parseRowKey(key)?.sessionId ?? key;
      if (message.includes(` on ${id}: `) || message.endsWith(` ${id}`)) running.delete(key);
    }
  };
  const logs = trace.logs;
  const push = logs.push.bind(logs);
  logs.push = (...items: string[]) => {
    for (const m of items) if (m.startsWith('error: automatic ')) offLog(m);
    return push(...items);
  };

  const settle = async (): Promise<void> => {
    const deadline = Date.now() + 30_000;
    let quiet = 0;
    while (quiet < 4) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      const keys = ids.map((id) => monitor.rows().find((r) => r.id === id)?.key).filter((k): k is string => !!k);
      const busy = running.size > 0 || server.stats.inFlight > 0 || keys.some((k) => operator.busy(k));
      quiet = busy ? 0 : quiet + 1;
      if (Date.now() > deadline) throw new Error(`actions did not settle (cycle ${cycle}, phase ${phase})`);
    }
  };
  const snapshot = () =>
    trace.rows.push({
      cycle,
      phase,
      vt: vt.now(),
      rows: monitor.rows().map((r) => ({
        id: r.id,
        verdict: r.verdict,
        action: r.action,
        waitUntil: r.assessment?.decision.waitUntil ?? null,
        wallProvider: r.quotaWall?.provider ?? null,
      })),
    });
  const enter = (p: Phase) => {
    phase = p;
    phaseStartSeq = seq;
  };

  try {
    await operator.restored;
    for (cycle = 0; cycle < fleet.cycles; cycle++) {
      enter('A');
      await monitor.refresh();
      await settle();
      snapshot();
      vt.advance(SPACING_MS);
      if (cycle === 0) applyMotions(fleet, ids, d, vt);
      enter('B');
      await monitor.refresh();
      await settle();
      snapshot();
      if (cycle === fleet.cycles - 1) {
        enter('hand');
        for (let i = 0; i < ids.length; i++) await clickHand(fleet.sessions[i], ids[i]);
        await settle();
      }
      enter('retry');
      vt.advance(CYCLE_GAP_MS);
      await settle();
    }
  } finally {
    trace.endVt = vt.now();
    for (const id of ids) {
      const row = monitor.rows().find((r) => r.id === id);
      const op = row ? operator.book.get(row.key) : undefined;
      if (op?.outcome === 'scheduled' && typeof op.at === 'number') trace.scheduledAt.push(op.at);
    }
    server.onRequest = null;
    server.onPrompt = null;
    operator.dispose();
    monitor.dispose();
  }
  return trace;

  async function clickHand(s: SessionSpec, id: string): Promise<void> {
    const row = monitor.rows().find((r) => r.id === id);
    if (!row || s.hand === 'none') return;
    const ok =
      s.hand === 'wake'
        ? QUALIFIES.wake(row)
        : s.hand === 'recover'
          ? QUALIFIES.recover(row)
          : QUALIFIES.abortAndWake(row) || row.state === 'generating';
    if (!ok) return;
    handStart = seq;
    try {
      if (s.hand === 'recover') await operator.recover({ target: row });
      else await operator.wake({ target: row, abortFirst: s.hand === 'abort-and-wake' });
    } catch (err) {
      trace.thrown.push(`${s.hand} ${id}: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      handStart = null;
    }
  }
}

/** How each session moves between the first cycle's two samples. */
function applyMotions(fleet: Fleet, ids: string[], d: ReturnType<SpecServer['directory']>, vt: ManualClock): void {
  fleet.sessions.forEach((s, i) => {
    switch (s.motion) {
      case 'steps':
        d.step(ids[i], 1, vt.now());
        break;
      case 'message':
        d.addMessage(ids[i], { text: 'Still working on it.', info: { ...modelInfo(s), ...messageTime(vt.now()) } });
        break;
      case 'flip':
        d.setSession(ids[i], { state: s.state === 'idle' ? 'generating' : 'idle' });
        break;
      case 'frozen':
        break;
    }
  });
}

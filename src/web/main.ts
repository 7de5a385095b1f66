// The web page of `session-ops watch` (issue 32): a person pastes a token, the page reads the
// fleet with it (Bearer, never a cookie) and keeps it live by the event stream. No view library:
// the page is a handful of lists re-rendered from one state object, which plain DOM calls through
// ./dom.ts do in a few hundred lines, with text only (textContent) and nothing to keep up to date.
// Routes: #/ the fleet; #/session/<backend key>/<sessionId> one session.
import './style.css';
import * as act from './act';
import { api, ApiError, token } from './api';
import { h, replaceChildren } from './dom';
import { openEventStream, type StreamState } from './events';
import { applyRemoved, applyRow, findRow, readFleet, withProviders, type PageFleet, type PageRow } from './fleet-model';
import type { SseEvent } from './sse';
import {
  attentionSection,
  providersSection,
  sessionDetail,
  sessionHash,
  sessionsSection,
  type AuditEntry,
  type ViewContext,
} from './views';

interface Who {
  name: string;
  scope: 'read' | 'act';
}

interface DetailState {
  key: string;
  id: string;
  row: PageRow | null;
  directory: string | null;
  audit: AuditEntry[];
  note: string | null;
}

const state = {
  who: null as Who | null,
  fleet: null as PageFleet | null,
  audit: new Map<string, AuditEntry[]>(),
  stream: 'connecting' as StreamState,
  streamDetail: '',
  error: null as string | null,
  /** The last alert of the stream: what happened and the session's page. */
  alert: null as { text: string; hash: string | null } | null,
  detail: null as DetailState | null,
};

const AUDIT_KEPT_PER_SESSION = 50;
let closeStream: (() => void) | null = null;
let app: HTMLElement;

// ------------------------------------------------------------------ sign in

function showLogin(message: string | null): void {
  closeStream?.();
  closeStream = null;
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    placeholder: 'paste your token',
  });
  const form = h(
    'form',
    { id: 'login', novalidate: true },
    h('h1', null, 'Session Ops'),
    h('p', null, 'The operator daemon of this fleet. Paste the token its owner gave you (kept in this tab only).'),
    h('label', { for: 'token' }, 'Token', input),
    message ? h('p', { class: 'error', role: 'alert' }, message) : null,
    h('button', { type: 'submit', class: 'primary' }, 'Open'),
  );
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const t = input.value.trim();
    if (!t) return;
    token.set(t);
    void start();
  });
  replaceChildren(app, form);
  input.focus();
}

function refusedMessage(err: ApiError): string {
  if (err.status === 429)
    return `Too many failed attempts from this address: wait${err.retryAfter ? ` ${err.retryAfter} s` : ''} before trying again.`;
  if (err.status === 401) return 'The daemon did not accept this token.';
  return `${err.code}: ${err.message}`;
}

// ------------------------------------------------------------------ loading

async function loadFleet(): Promise<void> {
  const fleet = readFleet(await api('/api/fleet'));
  const providers = await api('/api/providers').catch(() => null);
  state.fleet = providers ? withProviders(fleet, providers) : fleet;
  const audit = await api<{ entries?: AuditEntry[] }>('/api/audit?limit=500').catch(() => null);
  if (audit?.entries) {
    state.audit.clear();
    for (const e of audit.entries) addAudit(e);
  }
  state.error = null;
}

function addAudit(e: AuditEntry): void {
  if (!e.sessionId) return;
  const list = state.audit.get(e.sessionId) ?? [];
  list.push(e);
  if (list.length > AUDIT_KEPT_PER_SESSION) list.splice(0, list.length - AUDIT_KEPT_PER_SESSION);
  state.audit.set(e.sessionId, list);
}

async function loadDetail(key: string, id: string): Promise<void> {
  const known = state.fleet ? findRow(state.fleet, key, id) : null;
  const prior = state.detail && state.detail.key === key && state.detail.id === id ? state.detail : null;
  state.detail = {
    key,
    id,
    row: known?.row ?? prior?.row ?? null,
    directory: known?.directory ?? prior?.directory ?? null,
    audit: prior?.audit ?? state.audit.get(id) ?? [],
    note: prior?.note ?? 'Reading the session...',
  };
  render();
  try {
    // {backend, directory, session, audit} (docs/daemon-api.md)
    const answer = await api<Record<string, unknown>>(
      `/api/sessions/${encodeURIComponent(id)}?backend=${encodeURIComponent(key)}`,
    );
    const merged = ((answer.session as PageRow | null) ?? known?.row ?? null) as PageRow | null;
    const audit = Array.isArray(answer.audit) ? (answer.audit as AuditEntry[]) : (state.audit.get(id) ?? []);
    state.detail = {
      key,
      id,
      row: merged,
      directory: typeof answer.directory === 'string' ? answer.directory : (known?.directory ?? null),
      audit,
      note: null,
    };
  } catch (err) {
    if (state.detail?.id !== id) return;
    state.detail.note =
      err instanceof ApiError && err.status === 404
        ? 'The daemon does not watch this session.'
        : String(err instanceof Error ? err.message : err);
    if (err instanceof ApiError && err.status === 404) state.detail.row = null;
  }
  render();
}

// ------------------------------------------------------------------ live

function onEvent(e: SseEvent): void {
  let data: unknown;
  try {
    data = JSON.parse(e.data);
  } catch {
    return;
  }
  if (e.type === 'reset') return reloadAll();
  if (!state.fleet) return;
  if (e.type === 'row') state.fleet = applyRow(state.fleet, data);
  else if (e.type === 'removed') state.fleet = applyRemoved(state.fleet, data);
  else if (e.type === 'outcome') {
    const entry = ((data as { entry?: AuditEntry }).entry ?? data) as AuditEntry;
    addAudit(entry);
    if (state.detail && entry.sessionId === state.detail.id) state.detail.audit = [...state.detail.audit, entry];
  } else if (e.type === 'alert') {
    const a = data as { kind?: string; backend?: string; sessionId?: string; title?: string | null; message?: string };
    state.alert = {
      text: `${new Date().toLocaleTimeString()} ${[a.kind, a.title || a.sessionId, a.message].filter(Boolean).join(': ')}`,
      hash: a.backend && a.sessionId ? sessionHash(a.backend, a.sessionId) : null,
    };
  } else return;
  if (state.detail && (e.type === 'row' || e.type === 'removed')) {
    const found = findRow(state.fleet, state.detail.key, state.detail.id);
    if (found) {
      state.detail.row = found.row;
      state.detail.directory = found.directory;
    }
  }
  render();
}

/** While the stream is not live (reconnecting, or a proxy that holds it back), the fleet is re-read this often. */
const POLL_WHEN_NOT_LIVE_MS = 10_000;
let pollTimer: ReturnType<typeof setInterval> | null = null;

function startPolling(): void {
  if (pollTimer) return;
  pollTimer = setInterval(() => {
    if (!state.who || state.stream === 'live') return;
    void loadFleet()
      .catch(
        (err: unknown) =>
          (state.error = `The fleet cannot be read: ${err instanceof Error ? err.message : String(err)}`),
      )
      .then(render);
  }, POLL_WHEN_NOT_LIVE_MS);
}

function startStream(): void {
  startPolling();
  closeStream?.();
  closeStream = openEventStream({
    onEvent,
    onState(s, detail) {
      state.stream = s;
      state.streamDetail = detail;
      render();
    },
    onOpen(resumed) {
      // Resumed: the daemon replays what changed while the stream was away (or sends `reset`).
      if (resumed) return;
      reloadAll();
    },
    onUnauthorized() {
      token.clear();
      showLogin('The daemon no longer accepts this token.');
    },
  });
}

/** Reads the fleet (and the open session) again: the stream was away and its changes are not all known. */
function reloadAll(): void {
  void loadFleet()
    .catch((err: unknown) => (state.error = err instanceof Error ? err.message : String(err)))
    .then(() => refreshDetail())
    .then(render);
}

function refreshDetail(): Promise<void> | void {
  const r = route();
  if (r.kind === 'session') return loadDetail(r.key, r.id);
}

// ------------------------------------------------------------------ render

type Route = { kind: 'fleet' } | { kind: 'session'; key: string; id: string };

function route(): Route {
  const m = /^#\/session\/([^/]+)\/([^/]+)$/.exec(location.hash);
  if (m) {
    try {
      return { kind: 'session', key: decodeURIComponent(m[1]), id: decodeURIComponent(m[2]) };
    } catch {
      return { kind: 'fleet' };
    }
  }
  return { kind: 'fleet' };
}

let scheduled = false;
function render(): void {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    draw();
  });
}

const STREAM_TEXT: Record<StreamState, string> = {
  connecting: 'connecting',
  live: 'live',
  retrying: 'reconnecting',
  stopped: 'not live',
};

function draw(): void {
  if (!state.who) return;
  const ctx: ViewContext = {
    canAct: state.who.scope === 'act',
    now: Date.now(),
    auditOf: (id) => state.audit.get(id) ?? [],
  };
  const header = h(
    'header',
    { id: 'top' },
    h('h1', null, h('a', { href: '#/' }, 'Session Ops')),
    h(
      'span',
      { class: 'who', 'data-scope': state.who.scope },
      `${state.who.name} · ${state.who.scope === 'act' ? 'can act' : 'read only'}`,
    ),
    h(
      'span',
      { class: `stream stream-${state.stream}`, title: state.streamDetail, 'data-stream': state.stream },
      STREAM_TEXT[state.stream],
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        on: {
          click: () => {
            token.clear();
            state.who = null;
            showLogin(null);
          },
        },
      },
      'Sign out',
    ),
  );
  const notices = [
    state.error ? h('p', { class: 'error', role: 'alert' }, state.error) : null,
    state.alert
      ? h(
          'p',
          { class: 'alert', role: 'status' },
          state.alert.hash ? h('a', { href: state.alert.hash }, state.alert.text) : state.alert.text,
        )
      : null,
  ];
  const r = route();
  let main: HTMLElement;
  if (!state.fleet) main = h('main', null, h('p', { class: 'muted' }, 'Reading the fleet...'));
  else if (r.kind === 'session') {
    const d = state.detail && state.detail.key === r.key && state.detail.id === r.id ? state.detail : null;
    const backend = state.fleet.backends.find((b) => b.key === r.key || b.name === r.key) ?? null;
    main = h(
      'main',
      null,
      sessionDetail(
        backend,
        backend?.key ?? r.key,
        d?.directory ?? null,
        d?.row ?? null,
        d?.audit ?? [],
        ctx,
        d?.note ?? null,
      ),
    );
  } else {
    main = h(
      'main',
      null,
      attentionSection(state.fleet, ctx),
      sessionsSection(state.fleet, ctx),
      providersSection(state.fleet, ctx),
    );
  }
  const scroll = window.scrollY;
  replaceChildren(app, header, ...notices, main);
  window.scrollTo(0, scroll);
}

// ------------------------------------------------------------------ start

async function start(): Promise<void> {
  replaceChildren(app, h('p', { class: 'muted' }, 'Signing in...'));
  try {
    state.who = await api<Who>('/api/whoami');
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 429 || err.status === 403)) {
      if (err.status !== 429) token.clear();
      showLogin(refusedMessage(err));
      return;
    }
    showLogin(`The daemon cannot be read: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  render();
  try {
    await loadFleet();
  } catch (err) {
    state.error = `The fleet cannot be read: ${err instanceof Error ? err.message : String(err)}`;
  }
  await refreshDetail();
  render();
  startStream();
}

function boot(): void {
  app = document.getElementById('app') as HTMLElement;
  act.onActed(() => {
    void loadFleet()
      .then(() => refreshDetail())
      .catch(() => {})
      .then(render);
  });
  window.addEventListener('hashchange', () => {
    render();
    window.scrollTo(0, 0);
    void refreshDetail();
  });
  if (token.get()) void start();
  else showLogin(null);
}

boot();

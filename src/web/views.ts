// The page's views, built with ./dom.ts (text only, never markup): the attention list, every
// session by backend and directory, the providers with their marks, and one session's detail.
// Act buttons appear only for an `act` token (the daemon refuses a `read` token's POST anyway).
import * as act from './act';
import { h, type Child } from './dom';
import {
  ATTENTION_LABEL,
  attentionList,
  attentionOf,
  costText,
  relativeTime,
  requestsOf,
  type PageBackend,
  type PageFleet,
  type PageRequest,
  type PageRow,
} from './fleet-model';

/** One audit entry as `/api/audit` and the `outcome` events give it. */
export interface AuditEntry {
  at?: string;
  who?: { kind?: string; name?: string };
  action?: string;
  backend?: string;
  directory?: string;
  sessionId?: string;
  verdict?: string | null;
  evidence?: string | null;
  model?: string | null;
  prompt?: { sha256?: string; firstLine?: string } | null;
  outcome?: { code?: string; message?: string; sent?: boolean };
}

export interface ViewContext {
  canAct: boolean;
  now: number;
  /** The last audit entries of a session (newest last). */
  auditOf(sessionId: string): AuditEntry[];
}

export const sessionHash = (backendKey: string, sessionId: string) =>
  `#/session/${encodeURIComponent(backendKey)}/${encodeURIComponent(sessionId)}`;

const BADGE_TEXT: Readonly<Record<string, string>> = {
  waiting: 'waiting for you',
  'quota-wall': 'quota wall',
  'malformed-report': 'malformed report',
  unreadable: 'unreadable',
  pending: 'pending',
};

/** The badge: the row's headline (data-badge), in words; a report says its status. */
function badge(row: PageRow): HTMLElement {
  const report = row.headline === 'report' && row.report && !('malformed' in row.report) ? row.report : null;
  const text = report ? `report: ${report.status}` : (BADGE_TEXT[row.headline] ?? row.headline);
  return h('span', { class: `badge badge-${row.headline}`, 'data-badge': row.headline, title: row.basis ?? '' }, text);
}

/** The attention reasons the badge does not already say (a waiting or hung badge says its own). */
function reasonChips(row: PageRow): Child[] {
  return attentionOf(row)
    .filter((r) => r !== row.headline)
    .map((r) => h('span', { class: `chip chip-${r}` }, ATTENTION_LABEL[r]));
}

function auditLine(e: AuditEntry, now: number): HTMLElement {
  const at = e.at ? Date.parse(e.at) : NaN;
  const whoText = e.who?.name ?? e.who?.kind ?? '?';
  const out = e.outcome?.code ?? '?';
  return h(
    'li',
    { class: 'audit' },
    h('span', { class: 'when', title: e.at ?? '' }, Number.isFinite(at) ? relativeTime(at, now) : '?'),
    ' ',
    h('span', { class: 'who' }, whoText),
    ' ',
    h('span', { class: 'what' }, e.action ?? '?'),
    ' → ',
    h('span', { class: `result result-${out}` }, out),
    e.outcome?.message ? h('span', { class: 'muted' }, ` ${e.outcome.message}`) : null,
  );
}

function requestButtons(backendKey: string, row: PageRow, req: PageRequest): Child[] {
  const t = { backend: backendKey, sessionId: row.id, row };
  if (req.kind === 'permission')
    return [
      h(
        'button',
        { type: 'button', 'data-act': 'allow-once', on: { click: () => act.answerPermission(t, req, 'once') } },
        'Allow once',
      ),
      h(
        'button',
        {
          type: 'button',
          'data-act': 'allow-always',
          class: 'secondary',
          on: { click: () => act.answerPermission(t, req, 'always') },
        },
        'Allow always',
      ),
      h(
        'button',
        {
          type: 'button',
          'data-act': 'reject',
          class: 'danger',
          on: { click: () => act.answerPermission(t, req, 'reject') },
        },
        'Reject',
      ),
    ];
  // A question is answered, or rejected (the agent is told it was dismissed and goes on).
  return req.questions.length
    ? [
        h(
          'button',
          { type: 'button', 'data-act': 'answer', on: { click: () => act.answerQuestion(t, req) } },
          'Answer...',
        ),
        h(
          'button',
          {
            type: 'button',
            'data-act': 'reject-question',
            class: 'danger',
            on: { click: () => act.rejectQuestion(t, req) },
          },
          'Reject',
        ),
      ]
    : [];
}

function requestsBlock(backendKey: string, row: PageRow, ctx: ViewContext): Child {
  const reqs = requestsOf(row);
  if (!reqs.length) return null;
  return h(
    'ul',
    { class: 'requests' },
    ...reqs.map((req) =>
      h(
        'li',
        { class: 'request', 'data-request': req.requestID },
        h('span', { class: 'request-title' }, req.title),
        ctx.canAct ? h('span', { class: 'buttons' }, ...requestButtons(backendKey, row, req)) : null,
      ),
    ),
  );
}

/** One session's card (the attention list and the fleet list). */
export function sessionCard(
  backend: PageBackend,
  directory: string,
  row: PageRow,
  ctx: ViewContext,
  /** Say the backend and directory (the attention list; the fleet list's headings say them). */
  where = false,
): HTMLElement {
  const cost = costText(row);
  const last = ctx.auditOf(row.id).slice(-3);
  return h(
    'article',
    {
      class: 'session',
      'data-session': row.id,
      'data-backend': backend.key,
      'data-headline': row.headline,
      'data-reasons': attentionOf(row).join(' '),
    },
    h(
      'header',
      null,
      badge(row),
      h('a', { class: 'title', href: sessionHash(backend.key, row.id) }, row.title || row.id),
      ...reasonChips(row),
    ),
    h(
      'p',
      { class: 'facts' },
      h('span', null, `${row.verdict} · ${row.action}${row.settled ? '' : ' · not settled'}`),
      cost ? h('span', { class: 'cost' }, cost) : null,
      where ? h('span', { class: 'muted where' }, `${backend.name} · ${directory}`) : null,
    ),
    h('p', { class: 'evidence' }, row.basis ?? ''),
    row.escalation ? h('p', { class: 'escalation' }, row.escalation.message) : null,
    row.automaticSkip ? h('p', { class: 'muted' }, `automatic mode: ${row.automaticSkip.text}`) : null,
    requestsBlock(backend.key, row, ctx),
    last.length ? h('ul', { class: 'last-acts' }, ...last.map((e) => auditLine(e, ctx.now))) : null,
  );
}

export function attentionSection(fleet: PageFleet, ctx: ViewContext): HTMLElement {
  const items = attentionList(fleet);
  return h(
    'section',
    { id: 'attention', 'aria-labelledby': 'attention-h' },
    h('h2', { id: 'attention-h' }, `Needs attention (${items.length})`),
    items.length
      ? h('div', { class: 'cards' }, ...items.map((i) => sessionCard(i.backend, i.directory, i.row, ctx, true)))
      : h(
          'p',
          { class: 'muted' },
          'Nothing waits for you: no session is waiting, escalated, stuck, hung or over budget.',
        ),
  );
}

export function sessionsSection(fleet: PageFleet, ctx: ViewContext): HTMLElement {
  return h(
    'section',
    { id: 'sessions', 'aria-labelledby': 'sessions-h' },
    h('h2', { id: 'sessions-h' }, 'Sessions'),
    ...fleet.backends.map((b) =>
      h(
        'div',
        { class: 'backend', 'data-backend': b.key },
        h('h3', null, b.name, h('span', { class: 'muted' }, ` ${b.key}${b.dialect ? ` · ${b.dialect}` : ''}`)),
        b.error ? h('p', { class: 'error' }, `unreachable: ${b.error}`) : null,
        ...b.directories.map((d) =>
          h(
            'div',
            { class: 'directory' },
            h('h4', null, d.directory, h('span', { class: 'muted' }, ` (${d.rows.length})`)),
            d.error ? h('p', { class: 'error' }, d.error) : null,
            d.rows.length
              ? h('div', { class: 'cards' }, ...d.rows.map((r) => sessionCard(b, d.directory, r, ctx)))
              : h('p', { class: 'muted' }, 'No sessions.'),
          ),
        ),
      ),
    ),
  );
}

export function providersSection(fleet: PageFleet, ctx: ViewContext): HTMLElement {
  return h(
    'section',
    { id: 'providers', 'aria-labelledby': 'providers-h' },
    h('h2', { id: 'providers-h' }, 'Providers'),
    ...fleet.backends.map((b) =>
      h(
        'div',
        { class: 'backend' },
        h('h3', null, b.name),
        b.providers.length
          ? h(
              'ul',
              { class: 'providers' },
              ...b.providers.map((p) =>
                h(
                  'li',
                  { class: `provider ${p.quota ? 'marked' : ''}`, 'data-provider': p.id },
                  h('strong', null, p.name ? `${p.name} (${p.id})` : p.id),
                  ' ',
                  h('span', { class: p.connected ? 'ok' : 'muted' }, p.connected ? 'connected' : 'not connected'),
                  p.quota
                    ? h(
                        'span',
                        { class: 'mark' },
                        ` · quota mark ${relativeTime(p.quota.markedAt, ctx.now)}`,
                        p.quota.resetAt !== null
                          ? `, resets ${relativeTime(p.quota.resetAt, ctx.now)}`
                          : ', reset unknown',
                        p.category ? ` (${p.category})` : '',
                      )
                    : null,
                ),
              ),
            )
          : h('p', { class: 'muted' }, 'No provider is connected or marked.'),
      ),
    ),
  );
}

const dl = (pairs: Array<[string, Child]>) =>
  h(
    'dl',
    null,
    ...pairs.filter(([, v]) => v !== null && v !== '').flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)]),
  );

/** One session's page (#/session/KEY/ID). */
export function sessionDetail(
  backend: PageBackend | null,
  backendKey: string,
  directory: string | null,
  row: PageRow | null,
  audit: AuditEntry[],
  ctx: ViewContext,
  note: string | null,
): HTMLElement {
  const back = h('p', null, h('a', { href: '#/' }, '← All sessions'));
  if (!row)
    return h(
      'section',
      { id: 'detail' },
      back,
      h('p', { class: 'error' }, note ?? 'The daemon does not watch this session.'),
    );
  const t = { backend: backendKey, sessionId: row.id, row };
  const wall = row.quotaWall;
  const report = row.report;
  return h(
    'section',
    { id: 'detail', 'data-session': row.id, 'data-backend': backendKey },
    back,
    h('h2', null, badge(row), ' ', row.title || row.id, ...reasonChips(row)),
    note ? h('p', { class: 'muted' }, note) : null,
    dl([
      ['Session', h('span', { class: 'mono' }, row.id)],
      ['Backend', `${backend?.name ?? backendKey} (${backendKey})`],
      ['Directory', directory ?? ''],
      ['Verdict', `${row.verdict}${row.settled ? '' : ' (not settled)'} · ${row.samples} samples · state ${row.state}`],
      ['Evidence', row.basis ?? ''],
      ['Action', `${row.action}: ${row.actionBasis ?? ''}`],
      ['Cost', costText(row)],
      [
        'Quota wall',
        wall
          ? `${wall.provider ?? 'unknown provider'} ${wall.reason ?? ''} (${wall.observed})${wall.resetAt ? `, resets ${relativeTime(wall.resetAt, ctx.now)}` : ''}`
          : '',
      ],
      [
        'Report',
        report
          ? 'malformed' in report
            ? `malformed: ${report.problem} (${report.raw})`
            : `${report.status} ${report.ticket}${report.summary ? `: ${report.summary}` : ''}`
          : '',
      ],
      ['Escalation', row.escalation?.message ?? ''],
      ['Automatic mode', row.automaticSkip?.text ?? ''],
      [
        'Scheduled retry',
        row.retry
          ? `wakes ${relativeTime(row.retry.firesAt, ctx.now)} (the reset ${relativeTime(row.retry.at, ctx.now)})`
          : '',
      ],
    ]),
    requestsBlock(backendKey, row, ctx),
    ctx.canAct
      ? h(
          'div',
          { class: 'buttons actions' },
          h('button', { type: 'button', 'data-act': 'wake', on: { click: () => act.wake(t) } }, 'Wake...'),
          h('button', { type: 'button', 'data-act': 'recover', on: { click: () => act.recover(t) } }, 'Recover...'),
          h(
            'button',
            { type: 'button', 'data-act': 'abort', class: 'danger', on: { click: () => act.abort(t) } },
            'Abort...',
          ),
          row.retry
            ? h(
                'button',
                {
                  type: 'button',
                  'data-act': 'cancel-retry',
                  class: 'secondary',
                  on: { click: () => act.cancelRetry(t) },
                },
                'Cancel retry...',
              )
            : null,
        )
      : null,
    h('h3', null, 'Audit trail'),
    audit.length
      ? h(
          'ul',
          { class: 'last-acts' },
          ...audit
            .slice()
            .reverse()
            .map((e) => auditLine(e, ctx.now)),
        )
      : h('p', { class: 'muted' }, 'No act on this session is recorded.'),
  );
}

// The decision table's invariants (issue 28 item 11), each one property over a run's trace
// (./harness.ts): it returns what broke it, or null. Every property runs in `npm test`
// (../../unit/properties/decision-table.test.ts) and in the long run (`npm run props`).
import { ANTI_RE_HANG_CLAUSE, EVIDENCE_RULE, QUOTA_SELF_REPORT_CLAUSE } from '../../../src/core/prompt/clauses';
import type { Fleet, NewestSpec, ProviderRecordSpec, SessionSpec } from './arbitraries';
import { HOUR, newestCreatedAt, queuedText, resetAt, type Trace, type TraceRequest } from './harness';

export interface Property {
  id: string;
  title: string;
  check(trace: Trace): string | null;
}

/** automatic.maxAgeHours and automatic.maxConsecutiveWakes, their defaults (issue 28 item 1). */
export const MAX_AGE_HOURS = 24;
export const MAX_CONSECUTIVE_WAKES = 3;

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();
const holds = (text: string, clause: string) => squash(text).includes(squash(clause));

function posts(t: Trace): TraceRequest[] {
  return t.requests.filter((r) => r.kind === 'abort' || r.kind === 'prompt');
}

function prompts(t: Trace): TraceRequest[] {
  return t.requests.filter((r) => r.kind === 'prompt');
}

function textOf(r: TraceRequest): string {
  return (r.payload?.parts ?? []).map((p) => p.text ?? '').join('\n');
}

function specOf(t: Trace, sessionId: string | null): { s: SessionSpec; i: number } | null {
  const i = sessionId === null ? -1 : t.ids.indexOf(sessionId);
  return i < 0 ? null : { s: t.fleet.sessions[i], i };
}

/** The session's newest message until a prompt reaches it (a message added between the first samples replaces it). */
function seededNewest(t: Trace, sessionId: string | null): NewestSpec | null {
  const s = specOf(t, sessionId)?.s;
  if (!s) return null;
  return s.motion === 'message' ? { kind: 'text' } : s.newest;
}

/** The models the session's seeded messages say it ran on (the backend's own record of it). */
function seededModels(s: SessionSpec | undefined): string[] {
  if (!s) return [];
  const out = s.lastModel ? [`${s.lastModel.provider}/${s.lastModel.model}`] : [];
  const n = s.newest;
  if (n.kind === 'wall' || n.kind === 'balance' || n.kind === 'failure')
    out.push(`${n.provider}/${s.lastModel?.model ?? 'm1'}`);
  return out;
}

/**
 * Why the prompt's model is not listed by `records` (the provider's records), or null: a model a
 * record names is listed; when no record names any model (or `firstVouches`: the first names none),
 * a model the session was seen running on (its seeded messages, the prompts answered before) is.
 */
function unlisted(t: Trace, r: TraceRequest, records: ProviderRecordSpec[], firstVouches = false): string | null {
  const m = r.payload?.model;
  if (!m?.providerID || !m.modelID) return null;
  if (records.some((p) => p.models.includes(m.modelID!))) return null;
  const namesNone = firstVouches || !records.some((p) => p.models.length > 0);
  if (namesNone && seenModels(t, r).includes(`${m.providerID}/${m.modelID}`)) return null;
  return `${describe(r)}: model ${m.modelID} is not listed by ${m.providerID} (lists: ${records.map((p) => `[${p.models.join(',')}]`).join(' ')}) nor seen answering`;
}

/** The models the session was seen running on before the request: its seeded messages, the prompts it answered. */
function seenModels(t: Trace, r: TraceRequest): string[] {
  return [
    ...seededModels(specOf(t, r.sessionId)?.s),
    ...prompts(t)
      .filter((p) => p.sessionId === r.sessionId && p.seq < r.seq)
      .map((p) => `${p.payload?.model?.providerID}/${p.payload?.model?.modelID}`),
  ];
}

const automatic = (r: TraceRequest) => r.phase !== 'hand';

/** Whether a provider has a quota record in force at `at` (any of its records: an id may be listed twice). */
export function markedAt(fleet: Fleet, provider: string, at: number): boolean {
  return fleet.providers.some((p) => {
    if (p.id !== provider || !p.quota) return false;
    const reset = resetAt(p.quota.reset);
    return reset === undefined || reset > at;
  });
}

/** The first prompt to each session (what its decision at the seeded newest message sent). */
function firstPrompts(t: Trace): TraceRequest[] {
  const seen = new Set<string>();
  return prompts(t).filter((r) => {
    if (r.sessionId === null || seen.has(r.sessionId)) return false;
    seen.add(r.sessionId);
    return true;
  });
}

/** Requests to a session before the first prompt reached it (the seeded newest message still stands). */
function beforeFirstPrompt(t: Trace, r: TraceRequest): boolean {
  const first = prompts(t).find((p) => p.sessionId === r.sessionId);
  return !first || r.seq <= first.seq;
}

const describe = (r: TraceRequest) =>
  `${r.method} ${r.path} (cycle ${r.cycle}, phase ${r.phase}${r.payload?.model ? `, model ${r.payload.model.providerID}/${r.payload.model.modelID}` : ''})`;

export const PROPERTIES: Property[] = [
  {
    id: 'one-snapshot',
    title: 'no abort or wake on one snapshot',
    check(t) {
      const bad = posts(t).find((r) => r.phase === 'A');
      return bad ? `${describe(bad)} was sent while the monitor held one fresh snapshot only` : null;
    },
  },
  {
    id: 'limit-1',
    title: "liveness reads only limit=1 (the one transcript read per session is authority rule 1's, never repeated)",
    check(t) {
      const bad = t.requests.find((r) => r.kind === 'message' && r.query.limit !== undefined && r.query.limit !== '1');
      if (bad) return `${describe(bad)} read messages with limit=${bad.query.limit}`;
      // Without limit: the whole transcript, read once per session for the worker's first user
      // message (who assigned it, issue 28 item 3), remembered; a second one is a liveness read.
      const whole = new Set<string>();
      for (const r of t.requests) {
        if (r.kind !== 'message' || r.query.limit !== undefined) continue;
        if (whole.has(r.sessionId ?? '')) return `${describe(r)} read the whole transcript again (no limit)`;
        whole.add(r.sessionId ?? '');
      }
      return null;
    },
  },
  {
    id: 'explicit-listed-model',
    title: 'no prompt without an explicit, listed model',
    check(t) {
      for (const r of prompts(t)) {
        const m = r.payload?.model;
        if (!m || typeof m.providerID !== 'string' || typeof m.modelID !== 'string' || !m.providerID || !m.modelID)
          return `${describe(r)} names no explicit model`;
        if (!t.fleet.providers.some((p) => p.id === m.providerID) && !t.fleet.connected.includes(m.providerID))
          return `${describe(r)}: provider ${m.providerID} is not in the listing`;
        // A model any record lists, or one seen running when the provider's first record names no
        // model (a provider listed twice whose other record names models: duplicate-provider-records).
        const records = t.fleet.providers.filter((p) => p.id === m.providerID);
        const problem = unlisted(t, r, records, records.length > 0 && records[0].models.length === 0);
        if (problem) return problem;
      }
      return null;
    },
  },
  {
    id: 'acceptable-provider',
    title: "no prompt to a provider with a quota record, disconnected, or the wall's own provider before its reset",
    check(t) {
      for (const r of prompts(t)) {
        const p = r.payload?.model?.providerID;
        if (!p) continue;
        if (!t.fleet.connected.includes(p)) return `${describe(r)}: ${p} is not connected`;
        // The provider's first record (a provider listed twice: see duplicate-provider-records).
        const first = t.fleet.providers.find((x) => x.id === p);
        if (first && markedAt({ ...t.fleet, providers: [first] }, p, r.vt))
          return `${describe(r)}: ${p} has a quota record in force (${JSON.stringify(first)})`;
      }
      for (const r of firstPrompts(t)) {
        const n = seededNewest(t, r.sessionId);
        const p = r.payload?.model?.providerID;
        if (n?.kind !== 'wall' || p !== n.provider) continue;
        const reset = resetAt(n.reset);
        if (reset === undefined || r.vt < reset)
          return `${describe(r)}: ${p} is the wall's own provider and its reset (${reset === undefined ? 'unknown' : new Date(reset).toISOString()}) has not passed`;
      }
      return null;
    },
  },
  {
    id: 'duplicate-provider-records',
    title:
      'a provider listed twice: no prompt while any of its records carries a quota record in force, nor on a model none of them lists',
    check(t) {
      for (const r of prompts(t)) {
        const p = r.payload?.model?.providerID;
        if (!p) continue;
        const records = t.fleet.providers.filter((x) => x.id === p);
        if (markedAt(t.fleet, p, r.vt))
          return `${describe(r)}: ${p} has a quota record in force (records: ${JSON.stringify(records)})`;
        const problem = unlisted(t, r, records);
        if (problem) return problem;
      }
      return null;
    },
  },
  {
    id: 'no-past-wait',
    title: 'no wait for a past time',
    check(t) {
      for (const snap of t.rows)
        for (const row of snap.rows)
          if (row.action === 'wait-for-reset' && (row.waitUntil === null || row.waitUntil <= snap.vt))
            return `row ${row.id} (cycle ${snap.cycle}, phase ${snap.phase}) waits for ${row.waitUntil === null ? 'nothing' : new Date(row.waitUntil).toISOString()}, at ${new Date(snap.vt).toISOString()}`;
      for (const o of t.outcomes)
        if (o.outcome.outcome === 'scheduled' && (o.outcome.at === null || o.outcome.at <= o.vt))
          return `${o.outcome.action} of ${o.outcome.sessionId} scheduled a retry for ${o.outcome.at === null ? 'no time' : new Date(o.outcome.at).toISOString()}, at ${new Date(o.vt).toISOString()}`;
      return null;
    },
  },
  {
    id: 'charge-sub-agent',
    title: 'no automatic act on a sub-agent session',
    // Found here after `charge` landed: the spec dialect's reader (src/core/backend/wire/sessions.ts
    // specSession) dropped a session's parentID, so a spec-dialect sub-agent was still acted on; it
    // reads it now, as stock opencode's does.
    check(t) {
      const bad = posts(t).find((r) => automatic(r) && specOf(t, r.sessionId)?.s.parent);
      return bad ? `${describe(bad)}: the session is a sub-agent (it has a parentID)` : null;
    },
  },
  {
    id: 'charge-max-age',
    title: `no automatic act on a session whose newest message is older than automatic.maxAgeHours (${MAX_AGE_HOURS})`,
    check(t) {
      for (const r of posts(t)) {
        const spec = specOf(t, r.sessionId);
        if (!automatic(r) || !spec || spec.s.newest.kind === 'none' || spec.s.motion === 'message') continue;
        if (!beforeFirstPrompt(t, r)) continue;
        const age = r.vt - newestCreatedAt(spec.s);
        if (age > MAX_AGE_HOURS * HOUR) return `${describe(r)}: its newest message is ${(age / HOUR).toFixed(1)} h old`;
      }
      return null;
    },
  },
  {
    id: 'charge-consecutive-wakes',
    title: `no more than automatic.maxConsecutiveWakes (${MAX_CONSECUTIVE_WAKES}) automatic wakes without a report`,
    check(t) {
      const count = new Map<string, number>();
      for (const r of prompts(t)) {
        if (!automatic(r) || !r.sessionId) continue;
        const n = (count.get(r.sessionId) ?? 0) + 1;
        count.set(r.sessionId, n);
        // Each wake is answered with unfinished text (answer 'text'): no report ended the series.
        if (specOf(t, r.sessionId)?.s.answer === 'text' && n > MAX_CONSECUTIVE_WAKES)
          return `${describe(r)}: automatic wake number ${n} of a session that ended idle without a report each time`;
      }
      return null;
    },
  },
  {
    id: 'charge-only-ticketed',
    title: 'with automatic.onlyTicketed, no automatic act on a session whose task names no ticket',
    check(t) {
      if (!t.fleet.onlyTicketed) return null;
      const bad = posts(t).find((r) => automatic(r) && specOf(t, r.sessionId) && !specOf(t, r.sessionId)!.s.ticketed);
      return bad ? `${describe(bad)}: its task names no ticket` : null;
    },
  },
  {
    id: 'wake-clauses',
    title: "every wake carries the anti-re-hang clause and, at a quota wall, the quota-wall prompt's five parts",
    check(t) {
      for (const r of prompts(t))
        if (!holds(textOf(r), ANTI_RE_HANG_CLAUSE)) return `${describe(r)} lacks the anti-re-hang clause`;
      for (const r of firstPrompts(t)) {
        if (seededNewest(t, r.sessionId)?.kind !== 'wall') continue;
        const text = textOf(r);
        const parts: Array<[string, boolean]> = [
          ['what happened', /What happened:/.test(text)],
          ['what is done', /What is done:/.test(text)],
          ['where to resume', /Where to resume:/.test(text)],
          ['the evidence rule', holds(text, EVIDENCE_RULE)],
          [
            'the completion-report protocol with the quota self-report clause',
            /Completion report protocol:/.test(text) && holds(text, QUOTA_SELF_REPORT_CLAUSE),
          ],
        ];
        const missing = parts.filter(([, ok]) => !ok).map(([name]) => name);
        if (missing.length) return `${describe(r)} wakes a quota-walled session without ${missing.join(', ')}`;
      }
      return null;
    },
  },
  {
    id: 'queued-resent',
    title: "a queued prompt's text is in the next wake",
    check(t) {
      for (const a of t.requests.filter((r) => r.kind === 'abort')) {
        const n = seededNewest(t, a.sessionId);
        if (n?.kind !== 'queued' || !beforeFirstPrompt(t, a)) continue;
        const next = prompts(t).find((p) => p.sessionId === a.sessionId && p.seq > a.seq);
        if (next && !textOf(next).includes(queuedText(n.token)))
          return `${describe(next)} follows an abort of a session with a queued prompt but does not re-send "${queuedText(n.token)}"`;
      }
      return null;
    },
  },
  {
    id: 'one-prompt-per-decision',
    title: 'one prompt per decision',
    check(t) {
      for (const o of t.outcomes) {
        const sent = prompts(t).filter(
          (r) => r.sessionId === o.outcome.sessionId && r.seq > o.startSeq && r.seq <= o.endSeq,
        );
        if (sent.length > 1)
          return `${o.outcome.action} of ${o.outcome.sessionId} (cycle ${o.cycle}, phase ${o.phase}) sent ${sent.length} prompts`;
      }
      const per = new Map<string, number>();
      for (const r of prompts(t)) {
        const k = `${r.sessionId} ${r.cycle} ${r.phase}`;
        per.set(k, (per.get(k) ?? 0) + 1);
        if (per.get(k)! > 1) return `${describe(r)}: a second prompt to the session in one sampling phase`;
      }
      return null;
    },
  },
  {
    id: 'nothing-sent-on-refusal',
    title: 'nothing sent (no abort either) on a refusal',
    check(t) {
      for (const o of t.outcomes) {
        const kind = o.outcome.outcome;
        const refusal =
          kind === 'refused' ||
          kind === 'escalated' ||
          kind === 'scheduled' ||
          kind === 'busy' ||
          /nothing sent/.test(o.outcome.message);
        if (!refusal) continue;
        const sent = posts(t).find(
          (r) => r.sessionId === o.outcome.sessionId && r.seq > o.startSeq && r.seq <= o.endSeq,
        );
        if (sent)
          return `${o.outcome.action} of ${o.outcome.sessionId} (cycle ${o.cycle}, phase ${o.phase}) ended ${kind} ("${o.outcome.message}") after ${describe(sent)}`;
      }
      return null;
    },
  },
  {
    id: 'balance-never-woken',
    title: 'a 402 balance failure (named only by its text) escalates and is never woken automatically',
    check(t) {
      for (const r of prompts(t)) {
        const n = seededNewest(t, r.sessionId);
        if (n?.kind === 'balance' && automatic(r) && beforeFirstPrompt(t, r))
          return `${describe(r)} wakes a session whose turn ended on a 402 balance failure`;
      }
      return null;
    },
  },
];

/** Every invariant: each runs in `npm test` and in the long run. */

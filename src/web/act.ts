// Acting from the page (an `act` token only): every act asks for confirmation in a dialog, sends
// one POST to the daemon (which runs it through its Operator exactly as a click in the editor does:
// the lock, the re-read before the POST, the guard) and shows the outcome the daemon answers: the
// outcome's code and message, whether anything was sent, or the refusal (409) or error.
import { api, ApiError } from './api';
import { h, replaceChildren, type Child } from './dom';
import type { PageRequest, PageRow } from './fleet-model';

export interface ActTarget {
  backend: string;
  sessionId: string;
  row: PageRow | null;
}

interface Field {
  name: string;
  label: string;
  kind: 'text' | 'textarea' | 'select' | 'checkbox';
  options?: Array<{ value: string; label: string }>;
  placeholder?: string;
  value?: string;
}

interface ActSpec {
  title: string;
  /** What will happen, in words. */
  says: Child[];
  fields?: Field[];
  confirm: string;
  /** Checks the fields; a message when they cannot be sent. */
  check?(values: Record<string, string | string[] | boolean>): string | null;
  send(values: Record<string, string | string[] | boolean>): Promise<unknown>;
}

let dialog: HTMLDialogElement | null = null;
/** Called after an act was answered (the page re-reads what changed). */
let afterAct: () => void = () => {};

export function onActed(fn: () => void): void {
  afterAct = fn;
}

function theDialog(): HTMLDialogElement {
  if (!dialog) {
    dialog = h('dialog', { id: 'act-dialog', 'aria-labelledby': 'act-title' });
    document.body.appendChild(dialog);
  }
  return dialog;
}

const sessionPath = (t: ActTarget, tail: string) => `/api/sessions/${encodeURIComponent(t.sessionId)}/${tail}`;

/** Opens the confirmation of one act. */
function open(spec: ActSpec): void {
  const d = theDialog();
  const inputs = new Map<string, HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement | HTMLInputElement[]>();
  const fieldEls = (spec.fields ?? []).map((f) => {
    const id = `act-field-${f.name}`;
    if (f.kind === 'textarea') {
      const el = h('textarea', { id, name: f.name, rows: 5, placeholder: f.placeholder ?? '' });
      el.value = f.value ?? '';
      inputs.set(f.name, el);
      return h('label', { for: id }, f.label, el);
    }
    if (f.kind === 'select') {
      const el = h(
        'select',
        { id, name: f.name },
        ...(f.options ?? []).map((o) => h('option', { value: o.value }, o.label)),
      );
      if (f.value) el.value = f.value;
      inputs.set(f.name, el);
      return h('label', { for: id }, f.label, el);
    }
    if (f.kind === 'checkbox') {
      const boxes = (f.options ?? []).map((o, n) =>
        h('input', { type: 'checkbox', id: `${id}-${n}`, name: f.name, value: o.value }),
      );
      inputs.set(f.name, boxes);
      return h(
        'fieldset',
        null,
        h('legend', null, f.label),
        ...boxes.map((b, n) => h('label', { class: 'choice', for: b.id }, b, (f.options ?? [])[n].label)),
      );
    }
    const el = h('input', { id, name: f.name, type: 'text', placeholder: f.placeholder ?? '', autocomplete: 'off' });
    el.value = f.value ?? '';
    inputs.set(f.name, el);
    return h('label', { for: id }, f.label, el);
  });
  const values = () => {
    const out: Record<string, string | string[] | boolean> = {};
    for (const [name, el] of inputs)
      out[name] = Array.isArray(el) ? el.filter((b) => b.checked).map((b) => b.value) : el.value;
    return out;
  };
  const result = h('div', { class: 'outcome', role: 'status', 'aria-live': 'polite' });
  const cancel = h('button', { type: 'button', class: 'secondary', on: { click: () => d.close() } }, 'Cancel');
  const confirm = h('button', { type: 'button', class: 'primary', 'data-act': 'confirm' }, spec.confirm);
  confirm.addEventListener('click', () => {
    const v = values();
    const problem = spec.check?.(v) ?? null;
    if (problem) {
      replaceChildren(result, h('p', { class: 'error' }, problem));
      return;
    }
    confirm.disabled = true;
    for (const el of inputs.values()) for (const i of Array.isArray(el) ? el : [el]) i.disabled = true;
    replaceChildren(result, h('p', null, 'Sending...'));
    spec
      .send(v)
      .then((answer) => showOutcome(result, answer, null))
      .catch((err: unknown) => showOutcome(result, err instanceof ApiError ? err.body : null, err))
      .finally(() => {
        confirm.remove();
        cancel.textContent = 'Close';
        cancel.focus();
        afterAct();
      });
  });
  replaceChildren(
    d,
    h('h2', { id: 'act-title' }, spec.title),
    h('div', { class: 'says' }, ...spec.says),
    ...fieldEls,
    result,
    h('div', { class: 'buttons' }, cancel, confirm),
  );
  if (!d.open) d.showModal();
  (fieldEls.length ? d.querySelector<HTMLElement>('input, textarea, select') : confirm)?.focus();
}

/** The outcome as the daemon answered it (the CLI's --json), or the error. */
function showOutcome(into: HTMLElement, answer: unknown, err: unknown): void {
  const o = (answer && typeof answer === 'object' ? answer : {}) as Record<string, unknown>;
  const inner = (o.outcome && typeof o.outcome === 'object' ? o.outcome : o) as Record<string, unknown>;
  const code = typeof inner.outcome === 'string' ? inner.outcome : typeof inner.code === 'string' ? inner.code : null;
  const message = typeof inner.message === 'string' ? inner.message : null;
  const sentValue = inner.sent ?? o.sent;
  const sent = typeof sentValue === 'boolean' || sentValue === 'unknown' ? sentValue : null;
  const lines: Child[] = [];
  if (err instanceof ApiError) {
    lines.push(
      h(
        'p',
        { class: 'error', 'data-outcome': err.code },
        `${err.status === 409 ? 'Refused' : 'Failed'} (${err.status} ${err.code}): ${err.message}`,
      ),
    );
  } else if (err) {
    lines.push(h('p', { class: 'error', 'data-outcome': 'error' }, `Failed: ${String(err)}`));
  }
  if (code || message)
    lines.push(
      h('p', { class: 'done', 'data-outcome': code ?? 'answered' }, [code, message].filter(Boolean).join(': ')),
    );
  if (sent !== null)
    lines.push(
      h(
        'p',
        { class: 'sent' },
        sent === 'unknown'
          ? 'Whether the backend received it is unknown (the request did not end cleanly).'
          : sent
            ? 'Sent to the backend.'
            : 'Nothing was sent.',
      ),
    );
  if (!lines.length) lines.push(h('p', { class: 'done', 'data-outcome': 'answered' }, 'Done.'));
  replaceChildren(into, ...lines);
}

// ------------------------------------------------------------------ the acts

const who = (t: ActTarget) => h('strong', null, t.row?.title || t.sessionId);

export function answerPermission(t: ActTarget, req: PageRequest, reply: 'once' | 'always' | 'reject'): void {
  const verb = { once: 'Allow once', always: 'Allow always', reject: 'Reject' }[reply];
  open({
    title: `${verb}?`,
    says: [
      h('p', null, who(t), ' asks: ', req.title),
      ...(req.permission?.patterns.length ? [h('p', { class: 'mono' }, req.permission.patterns.join('\n'))] : []),
      ...(reply === 'always' && req.permission?.always.length
        ? [h('p', null, 'From now on also allowed: ', req.permission.always.join(', '))]
        : []),
    ],
    confirm: verb,
    send: () =>
      api(sessionPath(t, `permissions/${encodeURIComponent(req.requestID)}`), {
        method: 'POST',
        body: { backend: t.backend, reply },
      }),
  });
}

export function answerQuestion(t: ActTarget, req: PageRequest): void {
  const fields: Field[] = req.questions.map((q, n) => ({
    name: `q${n}`,
    label: q.question,
    kind: q.multiple ? 'checkbox' : 'select',
    options: [
      ...(q.multiple ? [] : [{ value: '', label: '(choose)' }]),
      ...q.options.map((o) => ({ value: o.label, label: o.description ? `${o.label}: ${o.description}` : o.label })),
    ],
  }));
  open({
    title: 'Answer the question',
    says: [h('p', null, who(t), ' asks: ', req.title)],
    fields,
    confirm: 'Answer',
    check: (v) =>
      req.questions.some((_, n) => {
        const a = v[`q${n}`];
        return Array.isArray(a) ? a.length === 0 : !a;
      })
        ? 'Choose an answer to every question.'
        : null,
    send: (v) =>
      api(sessionPath(t, `questions/${encodeURIComponent(req.requestID)}`), {
        method: 'POST',
        body: {
          backend: t.backend,
          answers: req.questions.map((_, n) => {
            const a = v[`q${n}`];
            return Array.isArray(a) ? a : [String(a)];
          }),
        },
      }),
  });
}

export function rejectQuestion(t: ActTarget, req: PageRequest): void {
  open({
    title: 'Reject the question?',
    says: [
      h('p', null, who(t), ' asks: ', req.title),
      h('p', null, 'The agent is told the question was dismissed and goes on without an answer.'),
    ],
    confirm: 'Reject',
    send: () =>
      api(sessionPath(t, `questions/${encodeURIComponent(req.requestID)}`), {
        method: 'POST',
        body: { backend: t.backend, reject: true },
      }),
  });
}

export function abort(t: ActTarget): void {
  open({
    title: 'Abort the running turn?',
    says: [
      h(
        'p',
        null,
        'Aborts ',
        who(t),
        ': the running turn stops; files it wrote stay. The daemon re-reads the session first and refuses when it waits for a person.',
      ),
    ],
    confirm: 'Abort',
    send: () => api(sessionPath(t, 'abort'), { method: 'POST', body: { backend: t.backend } }),
  });
}

export function recover(t: ActTarget): void {
  open({
    title: 'Recover from the quota wall?',
    says: [
      h(
        'p',
        null,
        'Runs the recovery procedure on ',
        who(t),
        ': two samples, then a wake on a connected provider without a quota mark, or a retry scheduled for the reset, or an escalation.',
      ),
    ],
    confirm: 'Recover',
    send: () => api(sessionPath(t, 'recover'), { method: 'POST', body: { backend: t.backend } }),
  });
}

export function wake(t: ActTarget): void {
  open({
    title: 'Wake the session?',
    says: [
      h(
        'p',
        null,
        'Sends a prompt to ',
        who(t),
        '. The daemon re-reads it first and refuses unless it is idle; a composed prompt goes to a model the rules choose.',
      ),
    ],
    fields: [
      {
        name: 'kind',
        label: 'Prompt',
        kind: 'select',
        options: [
          { value: 'composed', label: "composed by the daemon for the session's state (wake or quota-wake)" },
          { value: 'text', label: 'my text below, to the model I name' },
        ],
        value: 'composed',
      },
      { name: 'prompt', label: 'Text', kind: 'textarea', placeholder: 'Continue with the task.' },
      {
        name: 'model',
        label: 'Model (provider/model, with my text)',
        kind: 'text',
        placeholder: 'e.g. anthropic/claude-sonnet-4',
      },
    ],
    confirm: 'Wake',
    check: (v) => {
      if (v.kind !== 'text')
        return v.model || String(v.prompt).trim()
          ? 'A composed prompt takes no text or model: choose "my text below".'
          : null;
      if (!String(v.prompt).trim()) return 'Write the prompt text.';
      if (!/^[^/\s]+\/\S+$/.test(String(v.model).trim()))
        return 'Name the model as provider/model: a wake never goes without one.';
      return null;
    },
    send: (v) =>
      api(sessionPath(t, 'wake'), {
        method: 'POST',
        body:
          v.kind === 'text'
            ? { backend: t.backend, prompt: String(v.prompt), model: String(v.model).trim() }
            : { backend: t.backend },
      }),
  });
}

export function cancelRetry(t: ActTarget): void {
  open({
    title: 'Cancel the scheduled retry?',
    says: [h('p', null, 'The daemon will not wake ', who(t), ' at the scheduled time.')],
    confirm: 'Cancel the retry',
    send: () => api(`${sessionPath(t, 'retry')}?backend=${encodeURIComponent(t.backend)}`, { method: 'DELETE' }),
  });
}

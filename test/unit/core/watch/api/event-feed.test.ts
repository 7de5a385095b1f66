// The event feed's alerts: every state the page's attention list names (waiting, escalated, stuck,
// hung, over budget) and a quota wall raise one `alert` per transition into it, read from the same
// fleet row the `row` event carries; a state a row was in when the first client came is no
// transition; leaving and coming back is a new one; an act's `escalated` outcome alerts once (not
// again when the row then says escalated); nothing is built while no client is wanted.
import { strict as assert } from 'node:assert';
import { feedEvents, type EventSources } from '../../../../../src/core/watch/api/event-feed';
import type { EventHub, EventName } from '../../../../../src/core/watch/api/events';
import { attentionOf } from '../../../../../src/core/watch/api/attention';
import type { MonitorChange } from '../../../../../src/core/monitor/types';
import type { ActionOutcome } from '../../../../../src/core/operations/action-outcome';

const KEY = 'http://127.0.0.1:4096/';

interface Fields {
  verdict: string;
  waiting: unknown;
  action: string | null;
  escalation: unknown;
  automaticSkip: { reason: string; text: string } | null;
  overBudget: boolean;
  headline: string;
}

const calm = (): Fields => ({
  verdict: 'healthy',
  waiting: null,
  action: 'leave-alone',
  escalation: null,
  automaticSkip: null,
  overBudget: false,
  headline: 'healthy',
});

describe('core/watch/api/event-feed: alerts', () => {
  const ids = ['ses_1', 'ses_2'];
  const rows = ids.map((id) => ({ key: `${KEY}\u0000/w\u0000${id}`, backendKey: KEY, directory: '/w', id, title: id }));
  let fields: Record<string, Fields>;
  let published: Array<{ event: EventName; data: unknown }>;
  let missed: number;
  let wanted: boolean;
  let attach: () => void;
  let change: (c: MonitorChange) => void;
  let act: (o: ActionOutcome) => void;
  let statusBuilds: number;
  let off: () => void;

  const hub = {
    get wanted() {
      return wanted;
    },
    get size() {
      return wanted ? 1 : 0;
    },
    publish: (events: ReadonlyArray<{ event: EventName; data: unknown }>) => published.push(...events),
    missed: () => missed++,
    onDidAttach: (l: () => void) => ((attach = l), () => undefined),
  } as unknown as EventHub;

  beforeEach(() => {
    fields = Object.fromEntries(ids.map((id) => [id, calm()]));
    published = [];
    missed = 0;
    wanted = false;
    statusBuilds = 0;
    const backend = { config: { key: KEY, name: 'oc' }, directories: [{ directory: '/w', rows }] };
    const src = {
      backends: () => [backend],
      statusOf: (bs: unknown[]) => (
        statusBuilds++,
        bs.map(() => ({ documents: [{ sessions: ids.map((id) => ({ id, ...fields[id] })) }] }))
      ),
      retryOf: () => null,
      onDidChange: (l: (c: MonitorChange) => void) => ((change = l), () => undefined),
      onDidAct: (l: (o: ActionOutcome) => void) => ((act = l), () => undefined),
      audit: null,
      nameOf: () => 'oc',
    } as unknown as EventSources;
    off = feedEvents(hub, src);
  });
  afterEach(() => off());

  const connect = () => {
    wanted = true;
    attach();
  };
  const round = (...changed: string[]) =>
    change({ structural: [], rows: rows.filter((r) => changed.includes(r.id)) as never, providers: false });
  const alerts = () =>
    published
      .filter((e) => e.event === 'alert')
      .map((e) => [(e.data as { kind: string }).kind, (e.data as { sessionId: string }).sessionId]);

  it('each attention state and a quota wall alert once per transition into it', () => {
    connect();
    fields.ses_1 = {
      ...calm(),
      verdict: 'waiting',
      waiting: { kind: 'permission' },
      action: 'answer',
      headline: 'waiting',
    };
    round('ses_1');
    round('ses_1');
    fields.ses_2 = { ...calm(), verdict: 'hung', action: 'abort-and-wake', headline: 'hung' };
    round('ses_2');
    fields.ses_2 = { ...fields.ses_2, automaticSkip: { reason: 'stuck', text: 'stuck: woken 3 times' } };
    round('ses_2');
    fields.ses_2 = { ...fields.ses_2, overBudget: true };
    round('ses_2');
    fields.ses_1 = { ...calm(), action: 'escalate', escalation: { reason: 'no provider' }, headline: 'quota-wall' };
    round('ses_1');
    round('ses_1', 'ses_2');
    assert.deepEqual(alerts(), [
      ['waiting', 'ses_1'],
      ['hung', 'ses_2'],
      ['stuck', 'ses_2'],
      ['over-budget', 'ses_2'],
      ['escalated', 'ses_1'],
      ['quota-wall', 'ses_1'],
    ]);
    const stuck = published.find((e) => e.event === 'alert' && (e.data as { kind: string }).kind === 'stuck')!;
    assert.deepEqual(stuck.data, {
      kind: 'stuck',
      backend: KEY,
      backendName: 'oc',
      directory: '/w',
      sessionId: 'ses_2',
      title: 'ses_2',
    });
    // The alert follows its row's `row` event in the same batch.
    const n = published.indexOf(stuck);
    assert.equal(published[n - 1].event, 'row');
  });

  it('leaving a state and coming back is a new transition', () => {
    connect();
    const stuck = { ...calm(), action: 'wake', automaticSkip: { reason: 'stuck', text: 'stuck' } };
    fields.ses_1 = stuck;
    round('ses_1');
    fields.ses_1 = calm();
    round('ses_1');
    fields.ses_1 = stuck;
    round('ses_1');
    assert.deepEqual(alerts(), [
      ['stuck', 'ses_1'],
      ['stuck', 'ses_1'],
    ]);
  });

  it('what a row is in when the first client comes is no transition', () => {
    fields.ses_1 = { ...calm(), verdict: 'hung', headline: 'hung' };
    connect();
    round('ses_1');
    assert.deepEqual(alerts(), []);
    fields.ses_1 = { ...fields.ses_1, overBudget: true };
    round('ses_1');
    assert.deepEqual(alerts(), [['over-budget', 'ses_1']]);
  });

  it("an act's escalated outcome alerts once, with its message; the row saying escalated then is not told again", () => {
    connect();
    act({ outcome: 'escalated', rowKey: rows[0].key, message: 'no provider works' } as ActionOutcome);
    fields.ses_1 = { ...calm(), action: 'escalate', escalation: { reason: 'x' } };
    round('ses_1');
    assert.deepEqual(alerts(), [['escalated', 'ses_1']]);
    assert.equal(
      (published.find((e) => e.event === 'alert')!.data as { message: string }).message,
      'no provider works',
    );
  });

  it('nothing is built while no client is wanted: the hub is told a change was missed', () => {
    fields.ses_1 = { ...calm(), verdict: 'hung', headline: 'hung' };
    round('ses_1');
    assert.equal(statusBuilds, 0);
    assert.equal(published.length, 0);
    assert.equal(missed, 1);
  });

  it("the page's attention list reads the same rule", () => {
    assert.deepEqual(
      attentionOf({
        ...calm(),
        verdict: 'hung',
        automaticSkip: { reason: 'stuck', text: '' },
        overBudget: true,
      } as never),
      ['stuck', 'hung', 'over-budget'],
    );
  });
});

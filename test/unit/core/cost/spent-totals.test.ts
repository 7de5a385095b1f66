import assert from 'node:assert/strict';
import { backendNodeId, directoryNodeId, SpentTotals, type SpentRows } from '../../../../src/core/cost/spent-totals';
import type { SessionAssessment } from '../../../../src/core/model';
import type { SessionRow } from '../../../../src/core/monitor/row';
import { ManualClock } from '../../../support/manual-clock';
import { sessionRow } from '../../../support/session-rows';

const GAP = 30_000;
const costRow = (id: string, usd: number | null, directory = '/w', backendKey = 'b'): SessionRow =>
  sessionRow(
    {
      id,
      assessment: {
        cost: usd === null ? null : { usd, tokens: { input: 1, output: 1, reasoning: 0, cacheRead: 0, cacheWrite: 0 } },
        costProvider: 'local',
      } as SessionAssessment,
    },
    { directory, backendKey },
  );

describe('SpentTotals: which directory and backend rows to refresh for their "$x spent"', () => {
  let timers: ManualClock;
  let rows: SessionRow[];
  let handed: string[][];
  let totals: SpentTotals;
  let sums: number;
  const read: SpentRows = {
    directory: (b, d) => (sums++, rows.filter((r) => r.backendKey === b && r.directory === d)),
    backend: (b) => (sums++, rows.filter((r) => r.backendKey === b)),
  };
  const dirA = directoryNodeId('b', '/a');
  const dirB = directoryNodeId('b', '/b');
  const backend = backendNodeId('b');
  const renderAll = () => {
    totals.render(backend, read.backend('b'), timers.now());
    totals.render(dirA, read.directory('b', '/a'), timers.now());
    totals.render(dirB, read.directory('b', '/b'), timers.now());
  };

  beforeEach(() => {
    timers = new ManualClock(1_000_000);
    handed = [];
    sums = 0;
    totals = new SpentTotals(GAP, (ids) => handed.push(ids), timers);
    rows = [costRow('s1', 0.1, '/a'), costRow('s2', 0.2, '/b')];
  });
  afterEach(() => totals.dispose());

  it('render gives the text and records it; an unchanged total refreshes nothing', () => {
    assert.equal(totals.render(backend, rows, timers.now()), '$0.3000 spent');
    totals.render(dirA, read.directory('b', '/a'), timers.now());
    timers.advance(GAP);
    rows = [costRow('s1', 0.1, '/a'), costRow('s2', 0.2, '/b')];
    assert.deepEqual(totals.changed([rows[0]], read, timers.now()), []);
    assert.equal(timers.size, 0, 'nothing waits');
  });

  it('only the parents of the changed row whose total changed, once the gap since their render passed', () => {
    renderAll();
    timers.advance(GAP);
    rows = [costRow('s1', 0.15, '/a'), costRow('s2', 0.2, '/b')];
    assert.deepEqual(totals.changed([rows[0]], read, timers.now()).sort(), [backend, dirA].sort());
    // Rendered again by the refresh: the same total refreshes nothing more.
    totals.render(backend, read.backend('b'), timers.now());
    totals.render(dirA, read.directory('b', '/a'), timers.now());
    timers.advance(GAP);
    assert.deepEqual(totals.changed([rows[0]], read, timers.now()), []);
    assert.equal(handed.length, 0);
  });

  it('a total that changes within the gap waits, and its timer hands it out once when the gap has passed', () => {
    renderAll();
    timers.advance(1_000);
    rows = [costRow('s1', 0.15, '/a'), costRow('s2', 0.2, '/b')];
    assert.deepEqual(totals.changed([rows[0]], read, timers.now()), []);
    // Waiting parents are not summed again by later changes.
    sums = 0;
    rows = [costRow('s1', 0.2, '/a'), costRow('s2', 0.2, '/b')];
    assert.deepEqual(totals.changed([rows[0]], read, timers.now()), []);
    assert.equal(sums, 0);
    timers.advance(GAP - 1_001);
    assert.equal(handed.length, 0);
    timers.advance(1);
    assert.deepEqual(
      handed.map((ids) => ids.sort()),
      [[backend, dirA].sort()],
    );
    timers.advance(10 * GAP);
    assert.equal(handed.length, 1, 'handed out once');
  });

  it('a parent never rendered is neither summed nor refreshed (a directory row shows only beside others)', () => {
    totals.render(backend, read.backend('b'), timers.now());
    timers.advance(GAP);
    sums = 0;
    rows = [costRow('s1', 0.5, '/a'), costRow('s2', 0.2, '/b')];
    assert.deepEqual(totals.changed([rows[0]], read, timers.now()), [backend]);
    assert.equal(sums, 1, 'only the rendered backend row was summed');
  });

  it('many changed rows of one directory sum each parent once', () => {
    renderAll();
    timers.advance(GAP);
    rows = [costRow('s1', 0.15, '/a'), costRow('s3', 0.2, '/a'), costRow('s2', 0.2, '/b')];
    sums = 0;
    totals.changed(rows, read, timers.now());
    assert.equal(sums, 3, 'backend, /a and /b once each');
  });

  it('a backend that reports no cost reads "" and never refreshes; forget drops parents no longer shown', () => {
    rows = [costRow('s1', null, '/a')];
    assert.equal(totals.render(backend, rows, timers.now()), '');
    timers.advance(GAP);
    assert.deepEqual(totals.changed(rows, read, timers.now()), []);
    totals.forget(() => false);
    rows = [costRow('s1', 1, '/a')];
    assert.deepEqual(totals.changed(rows, read, timers.now()), [], 'a forgotten parent is not rendered');
  });

  it('dispose cancels the waiting timer', () => {
    renderAll();
    rows = [costRow('s1', 0.9, '/a'), costRow('s2', 0.2, '/b')];
    totals.changed([rows[0]], read, timers.now());
    assert.equal(timers.size, 1);
    totals.dispose();
    assert.equal(timers.size, 0);
  });
});

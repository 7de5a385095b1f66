// The operator's state file: written atomically, merged by concurrent writers, a corrupt or
// oversized file a warning and a fresh start; merge rules per entry.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { JsonStateFile } from '../../../../src/core/operations/state-store';
import {
  emptyOperatorState,
  mergeOperatorState,
  operatorStateFile,
  parseOperatorState,
  type OperatorState,
} from '../../../../src/core/operations/state-store-operator';

const NOW = Date.UTC(2026, 10, 25, 12);
const HOUR = 3_600_000;

function state(over: Partial<OperatorState>): OperatorState {
  return { ...emptyOperatorState(), ...over };
}

describe('operator state store (src/core/operations/state-store*.ts)', function () {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-state-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a missing file is an empty state; a save writes it atomically (no temporary file left) and reads back', async () => {
    const file = operatorStateFile(dir, () => NOW);
    assert.deepEqual(await file.load(), { state: emptyOperatorState(), warning: null });
    const mine = state({ seen: { 'r|1': NOW }, acted: { 'v|1': NOW } });
    const saved = await file.save(mine);
    assert.equal(saved.warning, null);
    assert.deepEqual((await operatorStateFile(dir, () => NOW).load()).state, mine);
    assert.deepEqual(readdirSync(dir).sort(), ['locks', 'operator-state.json']);
    assert.deepEqual(readdirSync(path.join(dir, 'locks')), []);
  });

  it('concurrent writers merge: every writer’s entries are in the file', async () => {
    const writers = Array.from({ length: 8 }, () => operatorStateFile(dir, () => NOW));
    await Promise.all(writers.map((w, i) => w.save(state({ seen: { [`report|${i}`]: NOW + i } }))));
    const { state: merged } = await operatorStateFile(dir, () => NOW).load();
    assert.deepEqual(
      Object.keys(merged.seen).sort(),
      Array.from({ length: 8 }, (_, i) => `report|${i}`),
    );
  });

  it('a corrupt, foreign or oversized file is a warning and a fresh start; the next save replaces it', async () => {
    const p = path.join(dir, 'operator-state.json');
    writeFileSync(p, '{"version": 1, "retries": ');
    const broken = await operatorStateFile(dir, () => NOW).load();
    assert.deepEqual(broken.state, emptyOperatorState());
    assert.match(broken.warning ?? '', /could not be read .*: starting afresh/);
    writeFileSync(p, '[1,2,3]');
    assert.match((await operatorStateFile(dir, () => NOW).load()).warning ?? '', /not an operator state/);
    const saved = await operatorStateFile(dir, () => NOW).save(state({ seen: { a: NOW } }));
    assert.match(saved.warning ?? '', /starting afresh/);
    assert.deepEqual(JSON.parse(readFileSync(p, 'utf8')).seen, { a: NOW });
    const small = new JsonStateFile(p, { empty: () => 0, parse: () => 1, merge: (_a, b) => b }, { maxBytes: 4 });
    const big = await small.load();
    assert.equal(big.state, 0);
    assert.match(big.warning ?? '', /over 4\): not read/);
  });

  it('malformed entries are dropped, the rest kept', () => {
    const s = parseOperatorState({
      version: 1,
      retries: {
        k1: { key: 'k1', sessionId: 's1', at: NOW, state: 'scheduled', changedAt: NOW },
        k2: { key: 'other', sessionId: 's2', at: NOW, state: 'scheduled', changedAt: NOW },
        k3: { key: 'k3', sessionId: 's3', at: 'soon', state: 'scheduled', changedAt: NOW },
        k4: { key: 'k4', sessionId: 's4', at: NOW, state: 'maybe', changedAt: NOW },
      },
      acted: { a: NOW, b: -1, c: 'x' },
      history: { h: [NOW, 'x', null], g: 'no' },
      seen: [],
    });
    assert.deepEqual(Object.keys(s.retries), ['k1']);
    assert.deepEqual(s.acted, { a: NOW });
    assert.deepEqual(s.history, { h: [NOW] });
    assert.deepEqual(s.seen, {});
  });

  it('merge: per retry the newest change wins (a later cancel beats an earlier schedule); memories united; old ones pruned', () => {
    const retry = (st: 'scheduled' | 'cancelled' | 'done', changedAt: number) => ({
      key: 'k',
      sessionId: 's',
      at: NOW + HOUR,
      state: st,
      changedAt,
    });
    const disk = state({
      retries: { k: retry('scheduled', NOW - 10) },
      acted: { old: NOW - 40 * 24 * HOUR, v1: NOW - 5 },
      history: { row: [NOW - 2 * HOUR, NOW - 60_000] },
    });
    const mine = state({ retries: { k: retry('cancelled', NOW - 5) }, acted: { v2: NOW }, history: { row: [NOW] } });
    const m = mergeOperatorState(disk, mine, NOW);
    assert.equal(m.retries.k.state, 'cancelled');
    assert.equal(
      mergeOperatorState(mine, state({ retries: { k: retry('scheduled', NOW) } }), NOW).retries.k.state,
      'scheduled',
    );
    assert.deepEqual(Object.keys(m.acted).sort(), ['v1', 'v2']);
    assert.deepEqual(m.history, { row: [NOW - 60_000, NOW] }, 'the last hour only');
    const finished = mergeOperatorState(
      state({ retries: { k: retry('done', NOW - 40 * 24 * HOUR) } }),
      emptyOperatorState(),
      NOW,
    );
    assert.deepEqual(finished.retries, {}, 'a long-finished retry is pruned');
  });
});

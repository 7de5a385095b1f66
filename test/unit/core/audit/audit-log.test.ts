// The audit trail: appended one JSON line each, rotated by size (the oldest dropped beyond keep),
// read back oldest first with session/time filters and a limit (the newest kept), a bad line skipped.
import { strict as assert } from 'node:assert';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AuditLog, type AuditEntry } from '../../../../src/core/audit/audit-log';
import { promptDigest } from '../../../../src/core/audit/audit-entry';

function entry(i: number, sessionId = 's1'): AuditEntry {
  return {
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    who: { kind: 'token', name: 'alice' },
    action: 'abort',
    backend: 'b',
    directory: '/w',
    sessionId,
    verdict: 'hung',
    evidence: null,
    model: null,
    prompt: null,
    outcome: { code: 'idle', message: `#${i}`, sent: true },
  };
}

describe('core/audit/audit-log', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'so-audit-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('appends JSON lines in order and tells its listeners', async () => {
    const log = new AuditLog({ dir });
    const seen: string[] = [];
    log.onDidAppend((e) => seen.push(e.outcome.message));
    await Promise.all([0, 1, 2].map((i) => log.append(entry(i))));
    const lines = readFileSync(log.file, 'utf8').trim().split('\n');
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as AuditEntry).outcome.message),
      ['#0', '#1', '#2'],
    );
    assert.deepEqual(seen, ['#0', '#1', '#2']);
    assert.equal(statSync(log.file).mode & 0o777, 0o600);
  });

  it('rotates by size, keeps `keep` files, and reads across them oldest first', async () => {
    const log = new AuditLog({ dir, maxBytes: 1_000, keep: 2 });
    for (let i = 0; i < 40; i++) await log.append(entry(i));
    const files = readdirSync(dir).sort();
    assert.deepEqual(files, ['audit.1.jsonl', 'audit.2.jsonl', 'audit.jsonl']);
    for (const f of files) assert.ok(statSync(path.join(dir, f)).size <= 1_000, f);
    const { entries, truncated } = await log.query({ sessionId: null, since: null, until: null, limit: 1000 });
    assert.equal(truncated, false);
    const numbers = entries.map((e) => Number(e.outcome.message.slice(1)));
    assert.deepEqual(
      numbers,
      [...numbers].sort((a, b) => a - b),
      'oldest first',
    );
    assert.equal(numbers.at(-1), 39);
    assert.ok(numbers[0] > 0, 'the oldest were dropped with the file beyond keep');
  });

  it('filters by session and time; a limit keeps the newest; a bad line is skipped', async () => {
    const log = new AuditLog({ dir });
    for (let i = 0; i < 10; i++) await log.append(entry(i, i % 2 ? 'odd' : 'even'));
    appendFileSync(log.file, 'not json\n');
    const odd = await log.query({ sessionId: 'odd', since: null, until: null, limit: 100 });
    assert.deepEqual(
      odd.entries.map((e) => e.outcome.message),
      ['#1', '#3', '#5', '#7', '#9'],
    );
    assert.equal(odd.skipped, 1);
    const window = await log.query({
      sessionId: null,
      since: Date.UTC(2026, 0, 1, 0, 0, 3),
      until: Date.UTC(2026, 0, 1, 0, 0, 6),
      limit: 2,
    });
    assert.deepEqual(
      window.entries.map((e) => e.outcome.message),
      ['#5', '#6'],
    );
    assert.equal(window.truncated, true);
  });

  it('keeps a prompt as its SHA-256 and first line only', () => {
    const d = promptDigest('Wake up: the task is unfinished.\nsecret details here');
    assert.equal(d!.firstLine, 'Wake up: the task is unfinished.');
    assert.match(d!.sha256, /^[0-9a-f]{64}$/);
    assert.equal(promptDigest(''), null);
    assert.equal(promptDigest(`${'x'.repeat(500)}`)!.firstLine.length, 201);
  });
});

// The daemon's JSON-line log never carries a credential.
import { strict as assert } from 'node:assert';
import { jsonLineLogger, type LogLevel } from '../../../../src/core/watch/log';

describe('core/watch/log', () => {
  it('one JSON object per line with time, level and event; secrets dropped or masked', () => {
    const out: string[] = [];
    const log = jsonLineLogger((l) => out.push(l), { now: () => 0 });
    log('info', 'x', {
      backend: 'a',
      password: 'p1',
      nested: { Authorization: 'Basic abc', options: { apiKey: 'k' }, keep: 1 },
      message: 'proxy said Authorization: Basic b3BlbmNvZGU6c2VjcmV0 and Bearer abcdefghijkl',
    });
    assert.equal(out.length, 1);
    assert.ok(out[0].endsWith('\n'));
    const rec = JSON.parse(out[0]);
    assert.deepEqual(rec, {
      time: '1970-01-01T00:00:00.000Z',
      level: 'info',
      event: 'x',
      backend: 'a',
      nested: { keep: 1 },
      message: 'proxy said Authorization: Basic [redacted] and Bearer [redacted]',
    });
    assert.doesNotMatch(out[0], /p1|b3BlbmNvZGU6c2VjcmV0|apiKey/);
  });

  it('drops levels under the minimum', () => {
    const out: string[] = [];
    const log = jsonLineLogger((l) => out.push(l), { minLevel: 'info' });
    log('debug', 'round');
    log('warn', 'w');
    assert.equal(out.length, 1);
    assert.equal(JSON.parse(out[0]).event, 'w');
  });

  it('a minimum given as a function is read at every line', () => {
    const out: string[] = [];
    let level: LogLevel = 'debug';
    const log = jsonLineLogger((l) => out.push(l), { minLevel: () => level });
    log('debug', 'd1');
    level = 'error';
    log('warn', 'w');
    log('error', 'e');
    level = 'info';
    log('debug', 'd2');
    log('info', 'i');
    assert.deepEqual(
      out.map((l) => JSON.parse(l).event),
      ['d1', 'e', 'i'],
    );
  });
});

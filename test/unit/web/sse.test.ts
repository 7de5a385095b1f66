// The page's event-stream parser: events split anywhere across chunks (CRLF too), comments
// (keep-alives) ignored, multi-line data joined, the last id kept for Last-Event-ID, retry read,
// an event without data dropped, an endless line refused.
import { strict as assert } from 'node:assert';
import { MAX_EVENT_CHARS, SseParser } from '../../../src/web/sse';

describe('web/sse', () => {
  it('parses named events with ids, comments and multi-line data, however the text is split', () => {
    const text =
      ': keep-alive\r\nid: 1\r\nevent: row\r\ndata: {"a":1}\r\n\r\nid: 2\nevent: outcome\ndata: line one\ndata: line two\n\ndata:plain\r\rretry: 5000\n\n';
    const whole = new SseParser().push(text);
    assert.deepEqual(whole, [
      { type: 'row', data: '{"a":1}', id: '1' },
      { type: 'outcome', data: 'line one\nline two', id: '2' },
      { type: 'message', data: 'plain', id: '2' },
    ]);
    // One character at a time: the same events (a CRLF split between chunks is one line end).
    const p = new SseParser();
    const split = [...text].flatMap((c) => p.push(c));
    assert.deepEqual(split, whole);
    assert.equal(p.lastEventId, '2');
    assert.equal(p.retryMs, 5000);
  });

  it('an event without data is not dispatched; unknown fields are ignored', () => {
    const p = new SseParser();
    assert.deepEqual(p.push('event: row\nid: 7\n\nfoo: bar\ndata: x\n\n'), [{ type: 'message', data: 'x', id: '7' }]);
  });

  it('a line that never ends is refused, not stored', () => {
    const p = new SseParser();
    assert.throws(() => p.push(`data: ${'x'.repeat(MAX_EVENT_CHARS)}`), /longer than/);
    assert.deepEqual(p.push('\ndata: next\n\n'), [{ type: 'message', data: 'next', id: '' }]);
  });
});

import assert from 'node:assert/strict';
import { nextCursor, readMessagePage } from '../../../../src/core/backend/wire/message-page';
import { ShapeError } from '../../../../src/core/backend/wire/shape';
import { assistant, user } from '../../../support/paged-transcripts';

describe('backend/wire/message-page: one page of messages for summing cost', () => {
  it('reads id, role, finished, figures (messages: 1) and provider; sorts oldest first', () => {
    const open = assistant('msg_3', 0.5, 7, 1, true);
    const page = readMessagePage([open, user('msg_1'), assistant('msg_2', 0.25, 10, 5)], {});
    assert.deepEqual(
      page.messages.map((m) => [m.id, m.assistant, m.final]),
      [
        ['msg_1', false, true],
        ['msg_2', true, true],
        ['msg_3', true, false],
      ],
    );
    assert.deepEqual(page.messages[1].cost, {
      usd: 0.25,
      tokens: { input: 10, output: 5, reasoning: 0, cacheRead: 0, cacheWrite: 0 },
      messages: 1,
    });
    assert.equal(page.messages[0].cost, null);
    assert.equal(page.messages[1].providerID, 'local');
    assert.equal(page.next, null);
    // An error finishes a message too.
    const failed = assistant('msg_4', 0, 0, 0, true);
    failed.info.error = { name: 'MessageAbortedError', data: {} };
    assert.equal(readMessagePage([failed], {}).messages[0].final, true);
  });

  it('the next cursor: X-Next-Cursor, else the before of Link rel="next"; none on the last page', () => {
    assert.equal(nextCursor({ 'x-next-cursor': 'eyJpZCI6Im0ifQ' }), 'eyJpZCI6Im0ifQ');
    assert.equal(
      nextCursor({ link: '<http://h/session/ses_1/message?directory=%2Fw&limit=2&before=abc%3D>; rel="next"' }),
      'abc=',
    );
    assert.equal(nextCursor({ link: '<http://h/x?before=abc>; rel="prev"' }), null);
    assert.equal(nextCursor({}), null);
  });

  it('a body that is not a list of messages is a ShapeError naming what is wrong', () => {
    assert.throws(
      () => readMessagePage({ messages: [] }, {}),
      (e: unknown) => e instanceof ShapeError && /message list is not an array/.test(e.message),
    );
    assert.throws(() => readMessagePage([{ info: { role: 'user' } }], {}), /message 0 info\.id is not a string/);
    assert.throws(() => readMessagePage([null], {}), /message 0 is not an object/);
  });
});

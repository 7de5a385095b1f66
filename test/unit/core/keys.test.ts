import { strict as assert } from 'node:assert';
import {
  backendKey,
  directorySessionKey,
  joinKey,
  nodeId,
  parseNodeId,
  parseRowKey,
  reportKey,
  rowKey,
  rowKeyOfNode,
  sessionNodeId,
  splitKey,
} from '../../../src/core/keys';

describe('ids: every key and node id built and parsed in one place', () => {
  it('a backend key is its normalized base URL with the trailing slash, whichever form it is given in', () => {
    assert.equal(backendKey('http://127.0.0.1:4096'), 'http://127.0.0.1:4096/');
    assert.equal(backendKey('http://127.0.0.1:4096/'), 'http://127.0.0.1:4096/');
    assert.equal(backendKey('https://box.example/oc'), 'https://box.example/oc/');
  });

  it('a row key parses back into its backend, directory and session id', () => {
    const key = rowKey('http://127.0.0.1:4096', '/work/a:b', 'ses_1');
    assert.deepEqual(parseRowKey(key), {
      backendKey: 'http://127.0.0.1:4096',
      directory: '/work/a:b',
      sessionId: 'ses_1',
    });
    assert.equal(parseRowKey('not a row key'), null);
  });

  it('keys of different parts never collide (the separator is NUL)', () => {
    assert.notEqual(directorySessionKey('/w/a', 'b'), directorySessionKey('/w', 'a/b'));
    assert.deepEqual(splitKey(joinKey('a', '', 'c')), ['a', '', 'c']);
  });

  it('a session node id gives back the row key it shows; other node ids give none', () => {
    const key = rowKey('b', '/w', 'ses_1');
    const id = sessionNodeId(key);
    assert.equal(rowKeyOfNode(id), key);
    assert.deepEqual(parseNodeId(id), { kind: 'session', key });
    assert.equal(rowKeyOfNode(nodeId('backend', 'b')), null);
    assert.deepEqual(parseNodeId(nodeId('directory', 'b', '/w')), { kind: 'directory', key: joinKey('b', '/w') });
    assert.deepEqual(parseNodeId(nodeId('analysisError')), { kind: 'analysisError', key: '' });
    assert.equal(parseNodeId('zz:nothing'), null);
  });

  it('a report key names the session, the ticket, the status and the message; no report, no key', () => {
    const row = { key: 'k', report: { ticket: 'T-1', status: 'done' }, evidence: { latest: { newestId: 'm9' } } };
    assert.deepEqual(splitKey(reportKey(row)!), ['k', 'T-1', 'done', 'm9']);
    assert.equal(reportKey({ ...row, report: null }), null);
  });
});

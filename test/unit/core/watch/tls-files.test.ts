// A renewed TLS pair is taken without a restart: the daemon's HTTPS server serves certificate A,
// the files are replaced by B, the next look takes B (a new connection gets B, seen by its
// fingerprint); a certificate that does not match its key, or files that are gone, are refused,
// logged once, and the pair in use is kept; a file changed again is tried again.
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from 'node:tls';
import { WatchHttpServer } from '../../../../src/core/watch/http-server';
import { TlsFileWatch } from '../../../../src/core/watch/tls-files';
import type { LogFields } from '../../../../src/core/watch/log';

function selfSigned(dir: string, name: string): { cert: Buffer; key: Buffer; fingerprint: string } {
  const cert = path.join(dir, `${name}.crt`);
  const key = path.join(dir, `${name}.key`);
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'].concat([
      '-subj',
      `/CN=${name}`,
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ]),
    { stdio: 'ignore' },
  );
  const pem = readFileSync(cert);
  return { cert: pem, key: readFileSync(key), fingerprint: new X509Certificate(pem).fingerprint256 };
}

function servedFingerprint(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const fp = socket.getPeerX509Certificate()?.fingerprint256 ?? '';
      socket.end();
      resolve(fp);
    });
    socket.on('error', reject);
  });
}

describe('core/watch/tls-files: a renewed certificate without a restart', () => {
  let dir: string;
  let server: WatchHttpServer;
  let port: number;
  const logged: Array<{ event: string; fields?: LogFields }> = [];
  let a: ReturnType<typeof selfSigned>;
  let b: ReturnType<typeof selfSigned>;
  let files: { certFile: string; keyFile: string };

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-tls-'));
    a = selfSigned(dir, 'a');
    b = selfSigned(dir, 'b');
    files = { certFile: path.join(dir, 'cert.pem'), keyFile: path.join(dir, 'key.pem') };
    writeFileSync(files.certFile, a.cert);
    writeFileSync(files.keyFile, a.key);
    server = new WatchHttpServer(
      {
        metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }),
        health: () => ({ ok: true, detail: 'ok' }),
        status: () => ({}),
      },
      { tls: { cert: a.cert, key: a.key } },
    );
    port = (await server.listen({ host: '127.0.0.1', port: 0 })).port;
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes B when the files change, refuses a mismatched or missing pair once and keeps the one in use', async () => {
    const watch = new TlsFileWatch(
      files,
      (pair) => server.setTls(pair),
      (_l, event, fields) => logged.push({ event, fields }),
    );
    await watch.start();
    try {
      assert.equal(await servedFingerprint(port), a.fingerprint);
      assert.equal(await watch.check(), 'unchanged');
      // Rotation as a renewal tool does it: the new files renamed over the old ones.
      writeFileSync(`${files.certFile}.new`, b.cert);
      writeFileSync(`${files.keyFile}.new`, b.key);
      renameSync(`${files.certFile}.new`, files.certFile);
      renameSync(`${files.keyFile}.new`, files.keyFile);
      assert.equal(await watch.check(), 'reloaded');
      assert.equal(await servedFingerprint(port), b.fingerprint, 'a new connection gets the new certificate');
      assert.deepEqual(
        logged.map((l) => l.event),
        ['tls-reloaded'],
      );
      // Half a rotation: A's certificate with B's key.
      writeFileSync(files.certFile, a.cert);
      assert.equal(await watch.check(), 'refused');
      assert.equal(await watch.check(), 'unchanged', 'the same files are not tried again');
      assert.equal(await servedFingerprint(port), b.fingerprint, 'the pair in use is kept');
      assert.match(String(logged[1].fields?.reason), /key|mismatch/i);
      // The key follows: the pair checks out now.
      writeFileSync(files.keyFile, a.key);
      assert.equal(await watch.check(), 'reloaded');
      assert.equal(await servedFingerprint(port), a.fingerprint);
      rmSync(files.keyFile);
      assert.equal(await watch.check(), 'refused');
      assert.equal(await watch.check(), 'unchanged');
      assert.equal(await servedFingerprint(port), a.fingerprint);
      assert.deepEqual(
        logged.map((l) => l.event),
        ['tls-reloaded', 'tls-reload-failed', 'tls-reloaded', 'tls-reload-failed'],
      );
      assert.ok(!JSON.stringify(logged).includes('PRIVATE KEY'), 'no key material in the log');
    } finally {
      watch.stop();
    }
  });

  it('a plain HTTP server refuses setTls (restart to serve TLS)', () => {
    const plain = new WatchHttpServer({
      metrics: () => Promise.resolve({ contentType: 'text/plain', body: '' }),
      health: () => ({ ok: true, detail: 'ok' }),
      status: () => ({}),
    });
    assert.throws(() => plain.setTls({ cert: a.cert, key: a.key }), /plain HTTP/);
  });
});

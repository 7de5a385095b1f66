// The LSP client the language-server benches share: a minimal client over stdio (Content-Length
// framing, linear in the message size), our server and yaml-language-server started as the
// reference (the project's schema associated with routing.yaml), and the CPU time of a process.
import * as esbuild from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { spawnTracked, stopGroup } from '../../test/support/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const schemaPath = path.join(root, 'schemas', 'routing.schema.json');

export class Client {
  constructor(name, cmd, argv, onRequest, { cpuProf } = {}) {
    this.name = name;
    this.cpuProf = cpuProf;
    this.proc = spawnTracked(cmd, argv, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stderr.on('data', () => {});
    this.parts = [];
    this.partsLength = 0;
    this.expect = undefined;
    this.id = 0;
    this.pending = new Map();
    this.listeners = new Set();
    this.onRequest = onRequest;
    this.proc.stdout.on('data', (d) => this.data(d));
  }
  data(d) {
    // linear in the message size (a large answer, megabytes of symbols, arrives in many chunks)
    this.parts.push(d);
    this.partsLength += d.length;
    for (;;) {
      if (this.expect === undefined) {
        if (this.parts.length > 1) this.parts = [Buffer.concat(this.parts)];
        const head = this.parts[0];
        if (!head) return;
        const i = head.indexOf('\r\n\r\n');
        if (i < 0) return;
        const m = /Content-Length: *(\d+)/i.exec(head.subarray(0, i).toString('ascii'));
        this.expect = Number(m[1]);
        this.parts = [head.subarray(i + 4)];
        this.partsLength = head.length - i - 4;
      }
      if (this.partsLength < this.expect) return;
      const all = this.parts.length > 1 ? Buffer.concat(this.parts) : this.parts[0];
      const msg = JSON.parse(all.subarray(0, this.expect).toString('utf8'));
      const rest = all.subarray(this.expect);
      this.parts = rest.length ? [rest] : [];
      this.partsLength = rest.length;
      this.expect = undefined;
      this.message(msg);
    }
  }
  message(msg) {
    const at = performance.now();
    if (msg.method && msg.id !== undefined) {
      Promise.resolve(this.onRequest(msg)).then((result) => this.send({ id: msg.id, result: result ?? null }));
      return;
    }
    if (msg.id !== undefined) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      p?.(msg.error ? { error: msg.error } : msg.result);
      return;
    }
    for (const l of [...this.listeners]) l(msg, at);
  }
  send(m) {
    const s = JSON.stringify({ jsonrpc: '2.0', ...m });
    this.proc.stdin.write(`Content-Length: ${Buffer.byteLength(s)}\r\n\r\n${s}`);
  }
  request(method, params) {
    const id = ++this.id;
    this.send({ id, method, params });
    return new Promise((r) => this.pending.set(id, r));
  }
  notify(method, params) {
    this.send({ method, params });
  }
  /** Resolves with the time of the first notification satisfying `pred`. */
  waitFor(pred, timeoutMs = 180000) {
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => {
        this.listeners.delete(l);
        reject(new Error(`${this.name}: timed out`));
      }, timeoutMs);
      const l = (msg, at) => {
        if (pred(msg)) {
          clearTimeout(t);
          this.listeners.delete(l);
          resolve({ msg, at });
        }
      };
      this.listeners.add(l);
    });
  }
  async stop() {
    try {
      await Promise.race([this.request('shutdown', null), new Promise((r) => setTimeout(r, 2000))]);
      this.notify('exit', null);
      // a CPU profile is written as the process exits: give it the time
      if (this.cpuProf && this.proc.exitCode === null)
        await Promise.race([new Promise((r) => this.proc.once('exit', r)), new Promise((r) => setTimeout(r, 10000))]);
    } catch {
      /* ignore */
    }
    await stopGroup(this.proc, 500);
  }
}

/** Our server (`server`: a dist/server.js) over stdio with Node flags `flags`, initialized with `work` as its root. */
export async function startOurs(name, server, flags, work, cpuProf) {
  const c = new Client(
    name,
    process.execPath,
    [...flags, ...(cpuProf ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(cpuProf)] : []), server, '--stdio'],
    () => null,
    { cpuProf },
  );
  c.flags = flags;
  c.capabilities = await c
    .request('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(work).href,
      capabilities: {},
      initializationOptions: {},
    })
    .then((r) => r?.capabilities);
  c.notify('initialized', {});
  return c;
}

/** yaml-language-server over stdio, the project's schema associated with routing.yaml, `work` its workspace folder. */
export async function startRedhat(work, name = 'redhat') {
  const bin = require.resolve('yaml-language-server/bin/yaml-language-server');
  const yamlSettings = {
    validate: true,
    schemas: { [pathToFileURL(schemaPath).href]: ['routing.yaml'] },
    schemaStore: { enable: false },
    kubernetesCRDStore: { enable: false },
  };
  let configured;
  const gotConfig = new Promise((r) => (configured = r));
  const c = new Client(name, process.execPath, [bin, '--stdio'], (msg) => {
    if (msg.method === 'workspace/configuration') {
      const res = msg.params.items.map((it) => (it.section === 'yaml' ? yamlSettings : {}));
      configured();
      return res;
    }
    return null;
  });
  c.capabilities = await c
    .request('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(work).href,
      workspaceFolders: [{ uri: pathToFileURL(work).href, name: 'bench' }],
      capabilities: { workspace: { configuration: true } },
    })
    .then((r) => r?.capabilities);
  c.notify('initialized', {});
  await Promise.race([gotConfig, new Promise((r) => setTimeout(r, 10000))]);
  await new Promise((r) => setTimeout(r, 300));
  return c;
}

export function isDiag(uri, count) {
  return (m) =>
    m.method === 'textDocument/publishDiagnostics' &&
    m.params.uri === uri &&
    (count === undefined || m.params.diagnostics.length === count);
}

/** CPU time (ms) a process has used so far, all its threads (Linux: /proc/PID/task/TID/schedstat, ns); NaN elsewhere. */
export function cpuMs(pid) {
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`))
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1e6;
  } catch {
    return NaN;
  }
}

/** The Node flags the extension starts our server with (src/shared/serverProcess.ts). */
export async function loadServerExecArgv() {
  const outfile = path.join(root, '.bench', 'lsp-server-process.mjs');
  await esbuild.build({
    entryPoints: [path.join(root, 'src', 'shared', 'serverProcess.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'error',
  });
  return (await import(pathToFileURL(outfile).href)).SERVER_EXEC_ARGV;
}

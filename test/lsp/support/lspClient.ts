// A small LSP client for the tests: starts the BUILT server (dist/server.js, or `session-ops lsp`
// from dist/cli.js) over stdio (Content-Length framing) or over Node IPC (what VS Code's client
// uses), records every notification and every request the server sends, and answers those
// requests with null (the tests assert that there are none).
import { fork, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SERVER_EXEC_ARGV } from '../../../src/shared/serverProcess';

export const ROOT = path.resolve(__dirname, '..', '..', '..');
export const SERVER = path.join(ROOT, 'dist', 'server.js');
export const CLI = path.join(ROOT, 'dist', 'cli.js');

export interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

export interface PublishedDiagnostics {
  uri: string;
  version?: number;
  diagnostics: LspDiagnostic[];
  /** performance.now() when it arrived. */
  at: number;
}

export interface LspDiagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity: number;
  code: string;
  source: string;
  message: string;
  data?: unknown;
}

type Transport = 'stdio' | 'ipc';

export class LspClient {
  readonly proc: ChildProcess;
  readonly notifications: Message[] = [];
  readonly serverRequests: Message[] = [];
  readonly published: PublishedDiagnostics[] = [];
  private parts: Buffer[] = [];
  private partsLength = 0;
  /** The body length of the message being read (its header read). */
  private expect: number | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly waiters = new Set<() => void>();
  stderr = '';

  private constructor(
    proc: ChildProcess,
    private readonly transport: Transport,
  ) {
    this.proc = proc;
    proc.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    if (transport === 'stdio') proc.stdout?.on('data', (d: Buffer) => this.onData(d));
    else proc.on('message', (m: Message) => this.onMessage(m));
    proc.on('exit', () => {
      for (const p of this.pending.values()) p.reject(new Error(`server exited: ${this.stderr}`));
      this.pending.clear();
    });
  }

  /** dist/server.js over stdio, with the Node flags the extension starts it with (and `nodeArgs`). */
  static stdio(args: string[] = [], nodeArgs: string[] = []): LspClient {
    return new LspClient(
      spawn(process.execPath, [...SERVER_EXEC_ARGV, ...nodeArgs, SERVER, '--stdio', ...args], {
        stdio: ['pipe', 'pipe', 'pipe'],
      }),
      'stdio',
    );
  }

  /** `session-ops lsp --stdio` from dist/cli.js. */
  static cli(): LspClient {
    return new LspClient(
      spawn(process.execPath, [CLI, 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] }),
      'stdio',
    );
  }

  /** dist/server.js over Node IPC, as VS Code's language client starts it (TransportKind.ipc). */
  static ipc(nodeArgs: string[] = []): LspClient {
    return new LspClient(
      fork(SERVER, ['--node-ipc'], {
        execArgv: [...SERVER_EXEC_ARGV, ...nodeArgs],
        stdio: ['pipe', 'pipe', 'pipe', 'ipc'],
      }),
      'ipc',
    );
  }

  private onData(d: Buffer): void {
    // Linear in the message size: the chunks of a large answer (megabytes of symbols) are joined
    // once it is complete, and the header is searched for only at the start of a message.
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
        if (!m) throw new Error('bad header');
        this.expect = Number(m[1]);
        this.parts = [head.subarray(i + 4)];
        this.partsLength = head.length - i - 4;
      }
      if (this.partsLength < this.expect) return;
      const all = this.parts.length > 1 ? Buffer.concat(this.parts) : this.parts[0];
      const msg = JSON.parse(all.subarray(0, this.expect).toString('utf8')) as Message;
      const rest = all.subarray(this.expect);
      this.parts = rest.length ? [rest] : [];
      this.partsLength = rest.length;
      this.expect = undefined;
      this.onMessage(msg);
    }
  }

  private onMessage(msg: Message): void {
    if (msg.method !== undefined && msg.id !== undefined) {
      this.serverRequests.push(msg);
      this.send({ jsonrpc: '2.0', id: msg.id, result: null });
    } else if (msg.method !== undefined) {
      this.notifications.push(msg);
      if (msg.method === 'textDocument/publishDiagnostics')
        this.published.push({ ...(msg.params as Omit<PublishedDiagnostics, 'at'>), at: performance.now() });
    } else if (typeof msg.id === 'number') {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) p?.reject(new Error(`${msg.error.code}: ${msg.error.message}`));
      else p?.resolve(msg.result);
    }
    for (const w of [...this.waiters]) w();
  }

  private send(msg: Message): void {
    if (this.transport === 'ipc') {
      this.proc.send(msg);
      return;
    }
    const s = JSON.stringify(msg);
    this.proc.stdin?.write(`Content-Length: ${Buffer.byteLength(s, 'utf8')}\r\n\r\n${s}`);
  }

  request<T = unknown>(method: string, params: unknown): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  /** Resolves when `check` returns a value (checked now and after every incoming message). */
  waitUntil<T>(check: () => T | undefined, timeoutMs = 15000, what = 'condition'): Promise<T> {
    const now = check();
    if (now !== undefined) return Promise.resolve(now);
    return new Promise<T>((resolve, reject) => {
      const w = () => {
        const v = check();
        if (v !== undefined) {
          clearTimeout(t);
          this.waiters.delete(w);
          resolve(v);
        }
      };
      const t = setTimeout(() => {
        this.waiters.delete(w);
        reject(new Error(`timed out waiting for ${what}; stderr: ${this.stderr}`));
      }, timeoutMs);
      this.waiters.add(w);
    });
  }

  /** The first diagnostics published for `uri` after `since` (index into `published`) that satisfy `pred`. */
  diagnosticsFor(
    uri: string,
    pred: (p: PublishedDiagnostics) => boolean = () => true,
    since = 0,
    timeoutMs = 15000,
  ): Promise<PublishedDiagnostics> {
    return this.waitUntil(
      () => this.published.slice(since).find((p) => p.uri === uri && pred(p)),
      timeoutMs,
      `diagnostics for ${uri}`,
    );
  }

  async initialize(
    opts: { rootPath?: string; initializationOptions?: unknown; capabilities?: unknown } = {},
  ): Promise<InitializeResultLike> {
    const rootUri = opts.rootPath ? pathToFileURL(opts.rootPath).href : null;
    const result = await this.request<InitializeResultLike>('initialize', {
      processId: process.pid,
      rootUri,
      workspaceFolders: opts.rootPath ? [{ uri: rootUri, name: 'ws' }] : null,
      capabilities: opts.capabilities ?? {
        textDocument: {
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          publishDiagnostics: { versionSupport: true },
          completion: { completionItem: { snippetSupport: false } },
          hover: { contentFormat: ['markdown', 'plaintext'] },
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix'] } } },
        },
      },
      initializationOptions: opts.initializationOptions,
    });
    this.notify('initialized', {});
    return result;
  }

  open(uri: string, text: string, languageId = 'yaml', version = 1): number {
    const mark = this.published.length;
    this.notify('textDocument/didOpen', { textDocument: { uri, languageId, version, text } });
    return mark;
  }

  change(uri: string, version: number, changes: unknown[]): number {
    const mark = this.published.length;
    this.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: changes });
    return mark;
  }

  close(uri: string): number {
    const mark = this.published.length;
    this.notify('textDocument/didClose', { textDocument: { uri } });
    return mark;
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise<void>((r) => this.proc.once('exit', () => r()));
    try {
      await Promise.race([this.request('shutdown', null), new Promise((r) => setTimeout(r, 3000))]);
      this.notify('exit', null);
    } catch {
      /* already gone */
    }
    const t = setTimeout(() => this.proc.kill(), 3000);
    await exited;
    clearTimeout(t);
  }
}

export interface InitializeResultLike {
  capabilities: Record<string, unknown> & {
    textDocumentSync?: { change?: number; openClose?: boolean };
    completionProvider?: { triggerCharacters?: string[] };
  };
  serverInfo?: { name: string; version?: string };
}

export function fileUri(p: string): string {
  return pathToFileURL(p).href;
}

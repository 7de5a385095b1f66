// `session-ops watch` as a child process for the backend and editor tests: a bundled CLI over one
// backend directory at a 2 s spacing, listening on a free port; its /metrics read one sample at a
// time. The backend layer bundles the CLI per suite (test/backend/watch-process.ts); the editor
// suite runs the package's dist/cli.js (no esbuild inside the extension host).
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { hashToken } from '../../src/core/watch/auth/tokens';
import { waitFor } from './wait-for';

/** A token the daemon accepts: its name (in the audit trail) and scope. */
export interface WatchToken {
  readonly name: string;
  readonly scope: 'read' | 'act';
  readonly token: string;
}

export interface WatchProcess {
  readonly child: ChildProcess;
  readonly metricsUrl: string;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** The value of one sample line of /metrics, or undefined. */
  metric(name: string, labels: string): Promise<number | undefined>;
  stop(): void;
}

export interface WatchOptions {
  readToken?: string;
  tokens?: WatchToken[];
}

/** Starts the CLI at `cli` as watch on `baseUrl` for `directory` (state, home and config in `tmp`). */
export async function startWatchCli(
  cli: string,
  tmp: string,
  baseUrl: string,
  directory: string,
  options: WatchOptions = {},
): Promise<WatchProcess> {
  const config = path.join(tmp, 'session-ops.yaml');
  // The API is closed without a tokens file: `readToken` opens its read routes (/api/status) to it,
  // `tokens` names each token and its scope.
  const tokens = [
    ...(options.readToken ? [{ name: 'test', scope: 'read' as const, token: options.readToken }] : []),
    ...(options.tokens ?? []),
  ];
  if (tokens.length)
    writeFileSync(
      path.join(tmp, 'tokens.json'),
      JSON.stringify({
        version: 1,
        tokens: tokens.map((t) => ({ name: t.name, scope: t.scope, sha256: hashToken(t.token) })),
      }),
    );
  writeFileSync(
    config,
    [
      'backends:',
      `  - { name: oc, baseUrl: "${baseUrl}", directories: ["${directory}"] }`,
      'sampleSpacingSeconds: 2',
      ...(tokens.length ? ['auth: { tokensFile: tokens.json }'] : []),
      '',
    ].join('\n'),
  );
  const child = spawn(
    process.execPath,
    [cli, 'watch', '--config', config, '--listen', '127.0.0.1:0', '--allow-short-spacing'],
    // ELECTRON_RUN_AS_NODE: from an Electron extension host, process.execPath is Electron.
    {
      env: { PATH: process.env.PATH ?? '', HOME: tmp, XDG_STATE_HOME: tmp, ELECTRON_RUN_AS_NODE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const metricsUrl = await waitFor(
    'watch to listen',
    () => /"metricsUrl":"([^"]+)"/.exec(out)?.[1] ?? (child.exitCode !== null ? Promise.reject(new Error(out)) : null),
    20_000,
  );
  return {
    child,
    metricsUrl,
    output: () => out,
    async metric(name, labels) {
      const body = await (await fetch(metricsUrl)).text();
      const line = body.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    },
    stop() {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

// The bundled `session-ops` CLI as a separate process (backend layer): built once per suite with
// esbuild the way the package builds it, then run with a bare environment.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { webBuildOptions } from '../../scripts/web-bundle.mjs';

/** Bundles src/cli/main.ts into `outfile` (CommonJS, with the package's version and a shebang). */
export async function bundleCli(outfile: string): Promise<void> {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
  await esbuild.build({
    entryPoints: ['src/cli/main.ts'],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    mainFields: ['module', 'main'],
    logLevel: 'error',
    define: { __SESSION_OPS_VERSION__: JSON.stringify(pkg.version) },
    banner: { js: '#!/usr/bin/env node' },
  });
}

/** Bundles the CLI into `outfile` and the web page into `web/` beside it, where `watch` serves it from. */
export async function bundleCliWithPage(outfile: string): Promise<void> {
  await Promise.all([
    bundleCli(outfile),
    esbuild.build({ ...webBuildOptions(path.join(path.dirname(outfile), 'web'), false), logLevel: 'error' }),
  ]);
}

export interface CliProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundled CLI with only PATH and `env` in its environment; `nodeArgs` go before it (e.g. `-r preload`). */
export function runCliProcess(
  cli: string,
  args: string[],
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<CliProcessRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, cli, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

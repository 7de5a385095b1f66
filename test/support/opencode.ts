// Starts the real opencode server (npm opencode-ai, node_modules/.bin/opencode) on loopback,
// hermetic: a private HOME and XDG dirs, no model catalogue fetch, no autoupdate, and a config
// (OPENCODE_CONFIG_CONTENT) whose provider "local" points at a scripted loopback model.
// Optionally password-protected (OPENCODE_SERVER_PASSWORD). A missing binary is an error, never
// a skip. opencode's plugin SDK is installed once and given to each HOME (opencode-config-template.mjs).
// Only node: builtins, so editor tests and demo scripts can load it too.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  ensureOpencodeConfigTemplate,
  opencodeCacheRoot,
  opencodeVersion,
  seedOpencodeConfig,
} from './opencode-config-template.mjs';

export interface OpencodeOptions {
  /** OpenAI-compatible base URL of the scripted model, e.g. http://127.0.0.1:PORT/v1 */
  modelUrl: string;
  /** Turns on HTTP Basic auth (user `username`, default "opencode"). */
  password?: string;
  username?: string;
  /** API key configured for provider "local" (stock opencode echoes it in GET /provider). */
  apiKey?: string;
  /** Path of the binary; default: node_modules/.bin/opencode found from the working directory up. */
  binary?: string;
  /** How long to wait for "listening on". Default 60 s. */
  startTimeoutMs?: number;
  /** Changes the config before the server starts (a second provider, permissions ...). */
  configure?: (config: Record<string, unknown>) => Record<string, unknown>;
  /**
   * `preinstalled` (default): the HOME's config directory gets opencode's plugin SDK, installed once
   * per version (opencode-config-template.mjs), so the server does not fetch and install it again;
   * `own`: the server installs its own, as on a machine where it never ran.
   */
  pluginSdk?: 'preinstalled' | 'own';
}

const templates = new Map<string, Promise<string | null>>();

/** The plugin SDK's directory for `binary`'s version, installed once per process (null: not installable). */
function configTemplate(binary: string): Promise<string | null> {
  let t = templates.get(binary);
  if (!t) {
    t = Promise.resolve()
      .then(() => ensureOpencodeConfigTemplate(opencodeVersion(binary), opencodeCacheRoot(binary)))
      .catch((err: Error) => {
        console.error(`[opencode] ${err.message}; each server installs its own plugin SDK`);
        return null;
      });
    templates.set(binary, t);
  }
  return t;
}

/** A second OpenAI-compatible provider `backup` (model `b1`) on the same scripted model, for recovery. */
export function withBackupProvider(modelUrl: string): (config: Record<string, unknown>) => Record<string, unknown> {
  return (config) => ({
    ...config,
    disabled_providers: ['opencode'],
    provider: {
      ...(config.provider as Record<string, unknown>),
      backup: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Backup',
        options: { baseURL: modelUrl, apiKey: 'sk-backup-never-shown' },
        models: { b1: { name: 'B1' } },
      },
    },
  });
}

export interface OpencodeServer {
  /** http://127.0.0.1:PORT/ */
  baseUrl: string;
  home: string;
  password: string | null;
  username: string;
  /** Everything the server printed so far (for failure messages). */
  output(): string;
  /**
   * Ends the server and anything it spawned (SIGTERM, SIGKILL after 5 s). `abrupt`: SIGKILL at
   * once, a backend that vanishes mid-round (a crash, a host gone) and answers nothing while it
   * shuts down.
   */
  stop(options?: { abrupt?: boolean }): Promise<void>;
}

/** node_modules/.bin/opencode, searched from `from` upwards. Throws a clear error when missing. */
export function findOpencodeBinary(from = process.cwd()): string {
  const env = process.env.SESSION_OPS_OPENCODE_BIN;
  if (env) {
    if (!existsSync(env)) throw new Error(`SESSION_OPS_OPENCODE_BIN points at ${env}, which does not exist`);
    return env;
  }
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', '.bin', 'opencode');
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) break;
  }
  throw new Error(
    `the opencode binary was not found (node_modules/.bin/opencode above ${from}). Install the dev dependency: npm install --save-dev opencode-ai@1.18.33 (its postinstall links the platform binary).`,
  );
}

export function opencodeConfig(modelUrl: string, apiKey: string): Record<string, unknown> {
  return {
    autoupdate: false,
    share: 'disabled',
    model: 'local/m1',
    small_model: 'local/m1',
    provider: {
      local: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Local',
        options: { baseURL: modelUrl, apiKey },
        models: { m1: { name: 'M1' } },
      },
    },
  };
}

export async function startOpencode(options: OpencodeOptions): Promise<OpencodeServer> {
  const binary = options.binary ?? findOpencodeBinary();
  if (!existsSync(binary)) throw new Error(`the opencode binary ${binary} does not exist`);
  const home = mkdtempSync(path.join(os.tmpdir(), 'session-ops-opencode-'));
  const xdg = {
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
  };
  for (const dir of Object.values(xdg)) mkdirSync(dir, { recursive: true });
  const template = options.pluginSdk === 'own' ? null : await configTemplate(binary);
  if (template) seedOpencodeConfig(template, path.join(xdg.XDG_CONFIG_HOME, 'opencode'));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('OPENCODE_') && !k.startsWith('XDG_')) env[k] = v;
  }
  Object.assign(env, xdg, {
    HOME: home,
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_CONFIG_CONTENT: JSON.stringify(
      (options.configure ?? ((c) => c))(opencodeConfig(options.modelUrl, options.apiKey ?? 'sk-local-test-key')),
    ),
  });
  const username = options.username ?? 'opencode';
  if (options.password) {
    env.OPENCODE_SERVER_PASSWORD = options.password;
    if (options.username) env.OPENCODE_SERVER_USERNAME = options.username;
  }

  const child: ChildProcess = spawn(binary, ['serve', '--hostname', '127.0.0.1', '--port', '0'], {
    cwd: home,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // own process group: stop() ends the server and anything it spawned
  });
  let output = '';
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => child.once('exit', () => ((exited = true), resolve())));

  const cleanup = () => {
    try {
      rmSync(home, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
  };

  const stop = async (stopOptions: { abrupt?: boolean } = {}) => {
    if (!exited && child.pid) {
      try {
        process.kill(-child.pid, stopOptions.abrupt ? 'SIGKILL' : 'SIGTERM');
      } catch {
        /* already gone */
      }
      const killed = await Promise.race([
        exitPromise.then(() => true),
        new Promise<boolean>((r) => setTimeout(() => r(false), 5_000)),
      ]);
      if (!killed) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
        await exitPromise;
      }
    }
    cleanup();
  };

  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timeoutMs = options.startTimeoutMs ?? 60_000;
    const timer = setTimeout(
      () =>
        fail(
          new Error(`opencode did not print "listening on" within ${timeoutMs} ms. Output:\n${output.slice(-2000)}`),
        ),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const m = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve(m[1].endsWith('/') ? m[1] : `${m[1]}/`);
      }
    };
    const fail = (err: Error) => {
      clearTimeout(timer);
      stop().finally(() => reject(err));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (err) => fail(new Error(`could not start ${binary}: ${err.message}`)));
    child.once('exit', (code, signal) =>
      fail(
        new Error(`opencode exited before listening (code ${code}, signal ${signal}). Output:\n${output.slice(-2000)}`),
      ),
    );
  });

  return {
    baseUrl,
    home,
    password: options.password ?? null,
    username,
    output: () => output,
    stop,
  };
}

/**
 * Creates a session in `directory` (titled, or left for opencode to title) and sends it `text` on
 * `model` (default local/m1; 204 expected); returns its id.
 */
export async function launchSession(
  server: Pick<OpencodeServer, 'baseUrl'>,
  directory: string,
  title: string | undefined,
  text: string,
  model = { providerID: 'local', modelID: 'm1' },
): Promise<string> {
  const q = `directory=${encodeURIComponent(directory)}`;
  const res = await fetch(`${server.baseUrl}session?${q}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(title === undefined ? {} : { title }),
  });
  if (!res.ok) throw new Error(`POST /session answered ${res.status}`);
  const { id } = (await res.json()) as { id: string };
  const sent = await fetch(`${server.baseUrl}session/${id}/prompt_async?${q}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'build', model, parts: [{ type: 'text', text }] }),
  });
  if (sent.status !== 204) throw new Error(`prompt_async answered ${sent.status}, not 204`);
  return id;
}

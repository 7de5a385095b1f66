// Loads the `watch` configuration from disk: the file (size-limited), its problems (config.ts) and
// each backend's password from its environment variable or file. Any error is returned as clear
// lines for the operator; the caller refuses to start (or, on SIGHUP, keeps the old config).
// Password values are never part of a message.
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { formatProblem, parseWatchConfig, type WatchConfig } from './config';
import { MAX_TOKENS_FILE_BYTES, parseTokensFile, TokenBook } from './auth/tokens';

/** A configuration file larger than this is refused. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** A password file larger than this is refused (a password, not a document). */
export const MAX_PASSWORD_BYTES = 4096;

export interface LoadedConfig {
  config: WatchConfig;
  /** Per backend name: the credentials (absent: no authentication). */
  credentials: Map<string, { username: string; password: string }>;
  /** Warnings to log once (clear-text http off this machine ...). */
  warnings: string[];
  /** The API's tokens (auth.tokensFile); null: none configured, the API is closed. */
  tokens?: TokenBook | null;
  /** The TLS certificate and key (tls:), read; null: plain HTTP. */
  tls?: { cert: Buffer; key: Buffer } | null;
}

/** A certificate or key file larger than this is refused. */
export const MAX_PEM_BYTES = 1024 * 1024;

export type LoadResult = { ok: true; loaded: LoadedConfig } | { ok: false; errors: string[] };

export async function loadWatchConfig(
  file: string,
  options: { allowShortSpacing: boolean; env: Record<string, string | undefined> },
): Promise<LoadResult> {
  let text: string;
  try {
    const buf = await readFile(file);
    if (buf.length > MAX_CONFIG_BYTES) return { ok: false, errors: [`${file}: larger than ${MAX_CONFIG_BYTES} bytes`] };
    text = buf.toString('utf8');
  } catch (err) {
    return {
      ok: false,
      errors: [
        `cannot read the configuration ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
      ],
    };
  }
  const parsed = parseWatchConfig(text, { allowShortSpacing: options.allowShortSpacing });
  const errors = parsed.problems.filter((p) => p.severity === 'error').map((p) => formatProblem(file, text, p));
  const warnings = parsed.problems.filter((p) => p.severity === 'warning').map((p) => formatProblem(file, text, p));
  if (!parsed.config) return { ok: false, errors };
  const credentials = new Map<string, { username: string; password: string }>();
  for (const b of parsed.config.backends) {
    const auth = b.auth;
    if (auth.from === 'env') {
      const value = options.env[auth.variable];
      if (value === undefined || value === '') {
        errors.push(`backend "${b.name}": the environment variable ${auth.variable} (passwordEnv) is not set`);
        continue;
      }
      credentials.set(b.name, { username: auth.username, password: value });
    } else if (auth.from === 'file') {
      const read = await readPasswordFile(auth.file);
      if ('error' in read) {
        errors.push(`backend "${b.name}": cannot read passwordFile ${auth.file}: ${read.error}`);
        continue;
      }
      credentials.set(b.name, { username: auth.username, password: read.password });
    }
  }
  // The routing table's, the tokens file's and the TLS files' paths are taken from the configuration file's folder.
  const here = (p: string) => resolve(dirname(file), p);
  const c = parsed.config;
  const config: WatchConfig = {
    ...c,
    routing: c.routing ? here(c.routing) : null,
    auth: { ...c.auth, tokensFile: c.auth.tokensFile ? here(c.auth.tokensFile) : null },
    tls: c.tls ? { certFile: here(c.tls.certFile), keyFile: here(c.tls.keyFile) } : null,
  };
  let tokens: TokenBook | null = null;
  if (config.auth.tokensFile) {
    const read = await readSmall(config.auth.tokensFile, MAX_TOKENS_FILE_BYTES);
    if ('error' in read) errors.push(`auth.tokensFile ${config.auth.tokensFile}: cannot read it: ${read.error}`);
    else
      try {
        tokens = new TokenBook(parseTokensFile(read.data.toString('utf8')));
      } catch (err) {
        errors.push(`auth.tokensFile ${config.auth.tokensFile}: ${(err as Error).message}`);
      }
  }
  let tls: LoadedConfig['tls'] = null;
  if (config.tls) {
    const cert = await readSmall(config.tls.certFile, MAX_PEM_BYTES);
    const key = await readSmall(config.tls.keyFile, MAX_PEM_BYTES);
    if ('error' in cert) errors.push(`tls.certFile ${config.tls.certFile}: cannot read it: ${cert.error}`);
    if ('error' in key) errors.push(`tls.keyFile ${config.tls.keyFile}: cannot read it: ${key.error}`);
    if ('data' in cert && 'data' in key) tls = { cert: cert.data, key: key.data };
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, loaded: { config, credentials, warnings, tokens, tls } };
}

async function readSmall(file: string, max: number): Promise<{ data: Buffer } | { error: string }> {
  try {
    const data = await readFile(file);
    if (data.length > max) return { error: `larger than ${max} bytes` };
    return { data };
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
}

async function readPasswordFile(file: string): Promise<{ password: string } | { error: string }> {
  try {
    const buf = await readFile(file);
    if (buf.length > MAX_PASSWORD_BYTES) return { error: `larger than ${MAX_PASSWORD_BYTES} bytes` };
    const password = buf.toString('utf8').replace(/\r?\n$/, '');
    if (password === '') return { error: 'the file is empty' };
    return { password };
  } catch (err) {
    return { error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
}

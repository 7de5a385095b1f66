// `session-ops token add NAME --scope read|act --tokens-file FILE`: creates a token for the watch
// daemon's API, prints it once on stdout (it is not kept: only its SHA-256 goes into the file,
// written atomically with mode 0600), and names the file. `token list --tokens-file FILE` prints the
// names and scopes; `token remove NAME --tokens-file FILE` revokes one. The daemon reads the file at
// start and on SIGHUP (auth.tokensFile in its configuration).
import { systemClock } from '../core/clock';
import { randomBytes } from 'node:crypto';
import { chmod, readFile, rename, writeFile } from 'node:fs/promises';
import {
  formatTokensFile,
  hashToken,
  isScope,
  MAX_TOKENS_FILE_BYTES,
  newToken,
  parseTokensFile,
  tokenNameProblem,
  type StoredToken,
} from '../core/watch/auth/tokens';
import { UsageError } from './args';
import { defineCommand, runGroup, type CommandGroup, type CommandIo } from './command';
import { EXIT } from './exit-codes';

const USAGE = `Usage: session-ops token add NAME --scope read|act --tokens-file FILE [--json]
       session-ops token list --tokens-file FILE [--json]
       session-ops token remove NAME --tokens-file FILE

The tokens of the watch daemon's API (docs/daemon-api.md; auth.tokensFile in its configuration).
add:    creates a random token for NAME (a person or a script) with scope read (every GET) or act
        (also the POSTs that act on sessions), prints it ONCE on stdout, and stores only its
        SHA-256 in FILE (created with mode 0600 when missing). Send it as "Authorization: Bearer TOKEN".
        --json prints {"name","scope","token","tokensFile"}.
list:   the names and scopes in FILE (never a token: they are not kept).
remove: revokes NAME.
The daemon reads FILE at start and on SIGHUP ("kill -HUP PID" after a change).
Exit codes: 0 done, 1 the file could not be read or written, 2 usage (a name used twice, an unknown name).

Example:
  session-ops token add alice --scope act --tokens-file /etc/session-ops/tokens.json`;

export interface TokenIo extends CommandIo {
  readText: (file: string) => Promise<string | null>;
  writeText: (file: string, text: string) => Promise<void>;
  now: () => number;
  random: (n: number) => Buffer;
}

const defaultIo = (): TokenIo => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  readText: async (file) => {
    try {
      const buf = await readFile(file);
      if (buf.length > MAX_TOKENS_FILE_BYTES) throw new Error(`${file} is larger than ${MAX_TOKENS_FILE_BYTES} bytes`);
      return buf.toString('utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  },
  writeText: async (file, text) => {
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, text, { encoding: 'utf8', mode: 0o600 });
    await chmod(tmp, 0o600);
    await rename(tmp, file);
  },
  now: systemClock.now,
  random: randomBytes,
});

interface FileOptions {
  file: string;
  json: boolean;
}

function fileOption(values: Map<string, string>): string {
  const file = values.get('--tokens-file');
  if (!file) throw new UsageError('--tokens-file FILE is required');
  return file;
}

/** The tokens in the file (none when it does not exist); null after an error was printed. */
async function readTokens(file: string, io: TokenIo): Promise<StoredToken[] | null> {
  try {
    const text = await io.readText(file);
    return text === null ? [] : parseTokensFile(text);
  } catch (err) {
    io.stderr(`session-ops token: ${file}: ${(err as Error).message}\n`);
    return null;
  }
}

async function writeTokens(file: string, tokens: StoredToken[], io: TokenIo): Promise<boolean> {
  try {
    await io.writeText(file, formatTokensFile(tokens));
    return true;
  } catch (err) {
    io.stderr(
      `session-ops token: cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`,
    );
    return false;
  }
}

const addCommand = defineCommand<FileOptions & { name: string; scope: 'read' | 'act' }, TokenIo>({
  name: 'token',
  usage: USAGE,
  args: { flags: ['--json'], options: ['--scope', '--tokens-file'], positionals: 1 },
  io: defaultIo,
  options(a) {
    const name = a.positionals[0];
    if (!name) throw new UsageError('token add needs a NAME');
    const problem = tokenNameProblem(name);
    if (problem) throw new UsageError(problem);
    const scope = a.values.get('--scope');
    if (!isScope(scope)) throw new UsageError('--scope must be read or act');
    return { name, scope, file: fileOption(a.values), json: a.flags.has('--json') };
  },
  async run(o, io) {
    const tokens = await readTokens(o.file, io);
    if (!tokens) return EXIT.failed;
    if (tokens.some((t) => t.name === o.name))
      throw new UsageError(`the name "${o.name}" is in ${o.file} already (token remove ${o.name} first)`);
    const token = newToken(io.random);
    const entry: StoredToken = {
      name: o.name,
      scope: o.scope,
      sha256: hashToken(token),
      createdAt: new Date(io.now()).toISOString(),
    };
    if (!(await writeTokens(o.file, [...tokens, entry], io))) return EXIT.failed;
    if (o.json) io.stdout(`${JSON.stringify({ name: o.name, scope: o.scope, token, tokensFile: o.file })}\n`);
    else {
      io.stdout(`${token}\n`);
      io.stderr(
        `session-ops token: "${o.name}" (${o.scope}) added to ${o.file}. The token above is shown once and not kept; send it as "Authorization: Bearer <token>". Reload the daemon (SIGHUP).\n`,
      );
    }
    return EXIT.done;
  },
});

const listCommand = defineCommand<FileOptions, TokenIo>({
  name: 'token',
  usage: USAGE,
  args: { flags: ['--json'], options: ['--tokens-file'] },
  io: defaultIo,
  options: (a) => ({ file: fileOption(a.values), json: a.flags.has('--json') }),
  async run(o, io) {
    const tokens = await readTokens(o.file, io);
    if (!tokens) return EXIT.failed;
    const rows = tokens.map((t) => ({ name: t.name, scope: t.scope, createdAt: t.createdAt }));
    if (o.json) io.stdout(`${JSON.stringify({ tokens: rows })}\n`);
    else for (const r of rows) io.stdout(`${r.name}\t${r.scope}\t${r.createdAt ?? ''}\n`);
    return EXIT.done;
  },
});

const removeCommand = defineCommand<FileOptions & { name: string }, TokenIo>({
  name: 'token',
  usage: USAGE,
  args: { flags: [], options: ['--tokens-file'], positionals: 1 },
  io: defaultIo,
  options(a) {
    const name = a.positionals[0];
    if (!name) throw new UsageError('token remove needs a NAME');
    return { name, file: fileOption(a.values), json: false };
  },
  async run(o, io) {
    const tokens = await readTokens(o.file, io);
    if (!tokens) return EXIT.failed;
    if (!tokens.some((t) => t.name === o.name)) throw new UsageError(`no token named "${o.name}" in ${o.file}`);
    if (
      !(await writeTokens(
        o.file,
        tokens.filter((t) => t.name !== o.name),
        io,
      ))
    )
      return EXIT.failed;
    io.stderr(`session-ops token: "${o.name}" removed from ${o.file}; reload the daemon (SIGHUP).\n`);
    return EXIT.done;
  },
});

export const tokenGroup: CommandGroup<TokenIo> = {
  name: 'token',
  usage: USAGE,
  verbs: { add: addCommand, list: listCommand, remove: removeCommand } as CommandGroup<TokenIo>['verbs'],
  io: defaultIo,
};

export const runToken = (argv: string[], io: Partial<TokenIo> = {}) => runGroup(tokenGroup, argv, io);

// How a `session-ops` command is declared, one way for every command (in the style of the GitHub
// CLI's pkg/cmd/<noun>/<verb>: one options struct, one run function, exit codes named once).
//
// A command is one file, src/cli/<verb>.ts, exporting a `Command`:
//   name      the verb (`session-ops <name>`), also the prefix of its messages on stderr
//   usage     the whole --help text, with an `Example:` section and the exit codes it uses
//   args      what parseArgv accepts: flags, options taking a value, how many positionals
//   options   the parsed arguments -> the command's options struct (throw UsageError for anything
//             wrong; it may read a file the options name)
//   run       the options struct and the I/O -> an exit code from EXIT (src/cli/exit-codes.ts)
//   io        the real I/O (stdout, stderr and what else the command needs); tests pass overrides
// and a runner, `export const runX = (argv: string[], io: Partial<XIo> = {}) => runCommand(xCommand, argv, io)`.
// runCommand gives every command the same shell: --help or -h prints the usage on stdout (exit 0);
// a UsageError, from parsing or from run, prints "session-ops <name>: <message>", a blank line
// and the usage on stderr (exit 2). A command with verbs of its own (`report parse|format`) is a
// CommandGroup of such commands, run by runGroup.
//
// To add a command (e.g. `session-ops watch`): write src/cli/watch.ts as above, add its row to
// COMMANDS in src/cli/main.ts (name, one-line summary, lazy import of its runner), and a line
// to the `--help prints the usage with an example` test in test/unit/cli/help.test.ts.
import { parseArgv, UsageError, wantsHelp, type ArgSpec, type ParsedArgs } from './args';
import { EXIT } from './exit-codes';

/** The I/O every command has. */
export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export interface Command<Options, Io extends CommandIo> {
  readonly name: string;
  readonly usage: string;
  readonly args: ArgSpec;
  options(args: ParsedArgs, io: Io): Options | Promise<Options>;
  run(options: Options, io: Io): Promise<number>;
  io(): Io;
}

/** Declares a command (only to infer its types). */
export function defineCommand<Options, Io extends CommandIo>(command: Command<Options, Io>): Command<Options, Io> {
  return command;
}

export async function runCommand<Options, Io extends CommandIo>(
  command: Command<Options, Io>,
  argv: string[],
  overrides: Partial<Io> = {},
): Promise<number> {
  const io = { ...command.io(), ...overrides };
  return withUsage(io, command.name, command.usage, async () => {
    const parsed = parseArgv(argv, command.args);
    if (wantsHelp(parsed)) {
      io.stdout(`${command.usage}\n`);
      return EXIT.done;
    }
    return command.run(await command.options(parsed, io), io);
  });
}

/** A command whose first argument is one of its verbs (`report parse`, `report format`); they share its name and usage. */
export interface CommandGroup<Io extends CommandIo> {
  readonly name: string;
  readonly usage: string;
  readonly verbs: Readonly<Record<string, Command<unknown, Io>>>;
  io(): Io;
}

export async function runGroup<Io extends CommandIo>(
  group: CommandGroup<Io>,
  argv: string[],
  overrides: Partial<Io> = {},
): Promise<number> {
  const io = { ...group.io(), ...overrides };
  const [verb, ...rest] = argv;
  if (verb === '--help' || verb === '-h' || verb === 'help') {
    io.stdout(`${group.usage}\n`);
    return EXIT.done;
  }
  const command = verb !== undefined && Object.hasOwn(group.verbs, verb) ? group.verbs[verb] : undefined;
  if (command) return runCommand(command, rest, io);
  const verbs = Object.keys(group.verbs).join(' or ');
  return withUsage(io, group.name, group.usage, async () => {
    throw new UsageError(verb ? `unknown ${group.name} command "${verb}" (${verbs})` : `${group.name} needs ${verbs}`);
  });
}

/** Runs a command body: a UsageError prints the message and the usage on stderr and exits 2. */
export async function withUsage(
  io: CommandIo,
  name: string,
  usage: string,
  body: () => Promise<number>,
): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`session-ops ${name}: ${err.message}\n\n${usage}\n`);
      return EXIT.usage;
    }
    throw err;
  }
}

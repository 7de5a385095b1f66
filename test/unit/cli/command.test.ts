// The one way a session-ops command is declared and run (src/cli/command.ts): help, usage errors
// from parsing and from running, the options struct handed to run, and verbs of a group.
import assert from 'node:assert/strict';
import { UsageError } from '../../../src/cli/args';
import { defineCommand, runCommand, runGroup, type CommandIo } from '../../../src/cli/command';
import { EXIT } from '../../../src/cli/exit-codes';

function capture() {
  const io = { out: '', err: '' };
  const overrides: Partial<CommandIo> = { stdout: (t) => (io.out += t), stderr: (t) => (io.err += t) };
  return { io, overrides };
}

const USAGE = 'Usage: session-ops greet NAME [--loud]\n\nExample:\n  session-ops greet ada --loud';

const greet = defineCommand<{ name: string; loud: boolean }, CommandIo>({
  name: 'greet',
  usage: USAGE,
  args: { flags: ['--loud'], options: ['--fail'], positionals: 1 },
  io: () => ({ stdout: () => assert.fail('real stdout'), stderr: () => assert.fail('real stderr') }),
  options(a) {
    const name = a.positionals[0];
    if (!name) throw new UsageError('greet needs a NAME');
    if (a.values.has('--fail')) return { name: '', loud: false };
    return { name, loud: a.flags.has('--loud') };
  },
  async run(o, io) {
    if (o.name === '') throw new UsageError('--fail was given');
    io.stdout(`${o.loud ? 'HELLO' : 'hello'} ${o.name}\n`);
    return EXIT.done;
  },
});

describe('session-ops command declaration', () => {
  it('runs the options struct through run', async () => {
    const { io, overrides } = capture();
    assert.equal(await runCommand(greet, ['ada', '--loud'], overrides), EXIT.done);
    assert.equal(io.out, 'HELLO ada\n');
    assert.equal(io.err, '');
  });

  it('--help and -h print the usage on stdout and exit 0, before any option is checked', async () => {
    for (const help of ['--help', '-h']) {
      const { io, overrides } = capture();
      assert.equal(await runCommand(greet, [help], overrides), EXIT.done);
      assert.equal(io.out, `${USAGE}\n`);
    }
  });

  it('a usage error from parsing, from the options or from run prints the message and the usage on stderr, exit 2', async () => {
    for (const [argv, message] of [
      [['ada', '--quiet'], 'unknown argument "--quiet"'],
      [[], 'greet needs a NAME'],
      [['ada', '--fail', 'x'], '--fail was given'],
    ] as const) {
      const { io, overrides } = capture();
      assert.equal(await runCommand(greet, [...argv], overrides), EXIT.usage);
      assert.equal(io.err, `session-ops greet: ${message}\n\n${USAGE}\n`);
      assert.equal(io.out, '');
    }
  });

  it('any other error is not a usage error: it propagates', async () => {
    const broken = defineCommand<null, CommandIo>({
      ...greet,
      options: () => null,
      run: () => Promise.reject(new Error('boom')),
    });
    await assert.rejects(runCommand(broken, [], capture().overrides), /boom/);
  });

  it('a group runs its verbs with its name and usage; a missing or unknown verb is a usage error', async () => {
    const group = { name: 'greet', usage: USAGE, verbs: { hello: greet }, io: greet.io };
    let c = capture();
    assert.equal(await runGroup(group, ['hello', 'ada'], c.overrides), EXIT.done);
    assert.equal(c.io.out, 'hello ada\n');
    c = capture();
    assert.equal(await runGroup(group, ['help'], c.overrides), EXIT.done);
    assert.equal(c.io.out, `${USAGE}\n`);
    c = capture();
    assert.equal(await runGroup(group, [], c.overrides), EXIT.usage);
    assert.equal(c.io.err, `session-ops greet: greet needs hello\n\n${USAGE}\n`);
    c = capture();
    assert.equal(await runGroup(group, ['bye'], c.overrides), EXIT.usage);
    assert.equal(c.io.err, `session-ops greet: unknown greet command "bye" (hello)\n\n${USAGE}\n`);
  });
});

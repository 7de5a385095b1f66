import assert from 'node:assert/strict';
import { backendArgs, numberOption, parseArgv, UsageError } from '../../../src/cli/args';

describe('shared CLI argument parsing', () => {
  it('flags, options (both forms) and positionals', () => {
    const a = parseArgv(['ses_1', '--json', '--wait', '5', '--model=p/m'], {
      flags: ['--json'],
      options: ['--wait', '--model'],
      positionals: 1,
    });
    assert.deepEqual([...a.flags], ['--json']);
    assert.deepEqual([a.values.get('--wait'), a.values.get('--model')], ['5', 'p/m']);
    assert.deepEqual(a.positionals, ['ses_1']);
  });
  it('a list option repeats, each value kept in order; a plain option given twice differently is refused', () => {
    const spec = { flags: [], options: ['--routing'], lists: ['--label'] };
    const a = parseArgv(['--label', 'Kind/A', '--routing', 'r.yaml', '--label=Kind/B', '--label', 'Kind/A'], spec);
    assert.deepEqual(a.lists?.get('--label'), ['Kind/A', 'Kind/B', 'Kind/A']);
    assert.equal(a.values.get('--label'), undefined);
    assert.throws(() => parseArgv(['--label'], spec), /--label needs a value/);
    assert.throws(() => parseArgv(['--routing', 'a', '--routing', 'b'], spec), /given twice with different values/);
    assert.throws(() => parseArgv(['--label', 'Kind/A'], { flags: [], options: [] }), /unknown argument "--label"/);
  });
  it('usage errors: unknown flag, extra positional, missing value, bad number, missing backend flags', () => {
    assert.throws(() => parseArgv(['--nope'], { flags: [], options: [] }), UsageError);
    assert.throws(() => parseArgv(['a', 'b'], { flags: [], options: [], positionals: 1 }), /unknown argument "b"/);
    assert.throws(() => parseArgv(['--wait'], { flags: [], options: ['--wait'] }), /needs a value/);
    assert.throws(
      () => numberOption(parseArgv(['--wait', 'x'], { flags: [], options: ['--wait'] }), '--wait', 1, 0),
      /must be a number/,
    );
    assert.throws(() => backendArgs(parseArgv([], { flags: [], options: [] })), /--base-url is required/);
    assert.throws(
      () => backendArgs(parseArgv(['--base-url', 'http://h/'], { flags: [], options: ['--base-url'] })),
      /--directory is required/,
    );
    assert.throws(
      () =>
        backendArgs(
          parseArgv(['--base-url', 'ftp://h', '--directory', '/d'], {
            flags: [],
            options: ['--base-url', '--directory'],
          }),
        ),
      /invalid --base-url/,
    );
  });
  it('`-` is a positional; after `--` every argument is one (within the count); `--` alone is unknown without positionals', () => {
    const spec = { flags: ['--json'], options: [], positionals: Infinity };
    assert.deepEqual(parseArgv(['-', 'a', '--', '--json', '-x'], spec).positionals, ['-', 'a', '--json', '-x']);
    assert.deepEqual([...parseArgv(['--json', '--'], spec).flags], ['--json']);
    assert.throws(
      () => parseArgv(['--', 'a', 'b'], { flags: [], options: [], positionals: 1 }),
      /unknown argument "b"/,
    );
    assert.throws(() => parseArgv(['--'], { flags: [], options: [] }), /unknown argument "--"/);
  });
});

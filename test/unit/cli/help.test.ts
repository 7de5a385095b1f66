import assert from 'node:assert/strict';
import { runAbort } from '../../../src/cli/abort';
import { runCompose } from '../../../src/cli/compose';
import { runDispatch } from '../../../src/cli/dispatch';
import { main } from '../../../src/cli/main';
import { runRecover } from '../../../src/cli/recover';
import { runRoute } from '../../../src/cli/route';
import { runReport } from '../../../src/cli/report';
import { runLsp } from '../../../src/cli/lsp';
import { runStatus } from '../../../src/cli/status';
import { runValidate } from '../../../src/cli/validate';
import { runWake } from '../../../src/cli/wake';
import { runWatch } from '../../../src/cli/watch';
import { runToken } from '../../../src/cli/token';

describe('session-ops commands: --help and usage', () => {
  const commands = {
    status: runStatus,
    abort: runAbort,
    wake: runWake,
    recover: runRecover,
    dispatch: runDispatch,
    compose: runCompose,
    report: runReport,
    validate: runValidate,
    route: runRoute,
    lsp: runLsp,
    watch: runWatch,
    token: runToken,
  };
  /** The commands that talk to a backend name its password's environment variable. */
  const backendCommands = ['status', 'abort', 'wake', 'recover', 'dispatch', 'compose', 'route'];
  for (const [name, run] of Object.entries(commands)) {
    it(`${name} --help prints the usage with an example and exits 0; a bad flag exits 2`, async () => {
      let out = '';
      let err = '';
      const io = { stdout: (t: string) => (out += t), stderr: (t: string) => (err += t), env: {} };
      assert.equal(await run(['--help'], io), 0);
      assert.match(out, new RegExp(`Usage: session-ops ${name}`));
      assert.match(out, new RegExp(`Example:\\n  (session-ops|echo) `));
      if (backendCommands.includes(name)) assert.match(out, /SESSION_OPS_PASSWORD/);
      assert.equal(await run(['--no-such-flag'], io), 2);
      assert.match(err, /unknown argument|report needs|unknown report command|unknown token command/);
    });
  }
  it('the top-level help lists every action and the exit codes', async () => {
    const write = process.stdout.write;
    let out = '';
    process.stdout.write = ((t: string) => ((out += t), true)) as typeof process.stdout.write;
    try {
      assert.equal(await main(['--help']), 0);
    } finally {
      process.stdout.write = write;
    }
    for (const c of Object.keys(commands)) assert.match(out, new RegExp(`\\n  ${c} `));
    assert.match(out, /4 wait-for-reset, 5 escalated/);
  });
});

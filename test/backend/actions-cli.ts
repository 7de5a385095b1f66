// Runs the action commands in-process and captures their output (backend layer helpers).
import { runAbort } from '../../src/cli/abort';
import type { ActionIo } from '../../src/cli/action-io';
import { runCompose } from '../../src/cli/compose';
import { runDispatch } from '../../src/cli/dispatch';
import { runRecover } from '../../src/cli/recover';
import { runWake } from '../../src/cli/wake';

export const COMMANDS = {
  abort: runAbort,
  wake: runWake,
  recover: runRecover,
  dispatch: runDispatch,
  compose: runCompose,
};

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: Record<string, unknown> | null;
}

export async function cli(command: keyof typeof COMMANDS, argv: string[], io: Partial<ActionIo> = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await COMMANDS[command](argv, {
    env: {},
    ...io,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  let json: Record<string, unknown> | null = null;
  if (argv.includes('--json') && stdout.trim().startsWith('{')) json = JSON.parse(stdout) as Record<string, unknown>;
  return { code, stdout, stderr, json };
}

// The editor test suite's entry, loaded by the extension host of a real VS Code: code-server via
// the workbench URL payload (test/editor/run-code-server.mjs) or desktop VS Code via
// @vscode/test-electron (test/editor/run-electron.mjs). Both call run() and take its outcome as
// the exit code. Test files are bundled in here by esbuild (see esbuild.mjs).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type MochaType from 'mocha';
import { mochaHooks } from '../../support/mocha-habits';
import { assertHarnessReached } from './harness';

// eslint-disable-next-line @typescript-eslint/no-require-imports -- mocha stays external to the bundle (esbuild.mjs)
const Mocha = require('mocha') as typeof MochaType;

interface Outcome {
  title: string;
  state: 'passed' | 'failed' | 'pending';
  durationMs: number | null;
  error?: string;
}

export function run(): Promise<void> {
  // The project's habits (test/support/mocha-habits.ts): no .only, no empty run, pending tests say why.
  const mocha = new Mocha({
    ui: 'bdd',
    color: false,
    timeout: 120_000,
    reporter: 'spec',
    forbidOnly: true,
    failZero: true,
  });
  mocha.rootHooks(mochaHooks);
  // Through code-server, DOM checks must reach the browser harness: a suite that cannot would
  // quietly turn them into no-ops, so it fails before its first test.
  // (Not before the activation benchmark: it makes no DOM checks, and must start before activation.)
  if (process.env.SESSION_OPS_EDITOR_SUITE !== 'bench-activation') mocha.rootHooks({ beforeAll: assertHarnessReached });
  const grep = process.env.SESSION_OPS_EDITOR_GREP;
  if (grep) mocha.grep(grep);
  // Define describe/it on the global object, then load the bundled test files in order.
  mocha.suite.emit('pre-require', globalThis, 'session-ops-editor-suite', mocha);
  /* eslint-disable @typescript-eslint/no-require-imports -- load order matters: describe/it exist only after pre-require */
  if (process.env.SESSION_OPS_EDITOR_SUITE === 'bench-activation') {
    require('./activation.bench');
  } else if (process.env.SESSION_OPS_EDITOR_SUITE === 'bench-views') {
    require('./views.bench');
  } else if (process.env.SESSION_OPS_EDITOR_SUITE === 'attached-second') {
    require('./attached-second.test');
  } else if (process.env.SESSION_OPS_EDITOR_SUITE === 'untrusted') {
    require('./untrusted.test');
  } else {
    // The main suite in two halves of about equal time (run-code-server.mjs runs them at once, each
    // in its own code-server); SESSION_OPS_EDITOR_SUITE unset: the whole suite in one run.
    const half = process.env.SESSION_OPS_EDITOR_SUITE;
    if (half !== 'main-b') {
      require('./smoke.test');
      require('./actions.test');
      require('./routing.test');
      require('./pages.test');
      require('./act-once.test');
      require('./cost.test');
      require('./attached.test');
    }
    if (half !== 'main-a') {
      require('./views.test');
      require('./actions-spec.test');
      require('./waiting.test');
      require('./retask.test');
      require('./dispatch-ticket.test');
      require('./engines.test');
    }
  }
  /* eslint-enable @typescript-eslint/no-require-imports */

  const outcomes: Outcome[] = [];
  const resultsDir = process.env.SESSION_OPS_RESULTS_DIR;
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      if (resultsDir) {
        fs.mkdirSync(resultsDir, { recursive: true });
        fs.writeFileSync(
          path.join(resultsDir, process.env.SESSION_OPS_RESULTS_FILE ?? 'editor-results.json'),
          JSON.stringify({ failures, outcomes }, null, 2),
        );
      }
      if (failures > 0) reject(new Error(`${failures} editor test(s) failed`));
      else resolve();
    });
    // Where the layer's time goes: every top-level describe's wall time and every hook over 2 s.
    const began = new Map<unknown, number>();
    runner.on('suite', (s) => began.set(s, Date.now()));
    runner.on('suite end', (s) => {
      if (s.parent?.root)
        console.log(`[editor] ${s.title}: ${((Date.now() - (began.get(s) ?? Date.now())) / 1000).toFixed(1)} s`);
    });
    runner.on('hook', (h) => began.set(h, Date.now()));
    runner.on('hook end', (h) => {
      const ms = Date.now() - (began.get(h) ?? Date.now());
      if (ms > 2_000) console.log(`[editor] slow hook: ${h.fullTitle()} (${(ms / 1000).toFixed(1)} s)`);
    });
    runner.on('pass', (t) => outcomes.push({ title: t.fullTitle(), state: 'passed', durationMs: t.duration ?? null }));
    runner.on('pending', (t) => outcomes.push({ title: t.fullTitle(), state: 'pending', durationMs: null }));
    runner.on('fail', (t, err: Error) =>
      outcomes.push({
        title: t.fullTitle(),
        state: 'failed',
        durationMs: t.duration ?? null,
        error: err.stack ?? err.message,
      }),
    );
  });
}

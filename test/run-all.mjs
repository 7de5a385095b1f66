#!/usr/bin/env node
// `npm test`: builds (with type-check) and lints, then runs every test layer and prints a summary.
//   installs    started first, beside everything: the one-time installs of a fresh machine (Debian's
//               chromium, ripgrep, libkrb5-dev, prometheus and prometheus-alertmanager and opencode's
//               plugin SDK, then code-server into .cache; test/support/one-time-installs.mjs); the
//               layers marked * wait for it, the backend (+) only for its first part, the packages
//   0. build, lint  required, run side by side: nothing else starts when either fails (ESLint, zero warnings)
//   1. unit       mocha, plain Node, the pure modules
//   2. lsp        the built language server spoken to over LSP
//   3. backend +  the real opencode server (opencode-ai) and the spec-dialect test server (two files at a time)
//   4. editor *   the suite inside the extension host of a real VS Code (code-server + Chromium)
//   5. demo *     `npm run demo -- --screenshots`: every state on the demo backends settles, the screenshots are taken
//   6. vsix *     the packaged .vsix installed into code-server activates
//   7. bench-smoke * every bench at a tiny size (bench/smoke.mjs): completes and prints its table
// After build and lint, the layers run two at a time (SESSION_OPS_TEST_LANES, default 2; 1 runs them
// one after the other): the long ones first (backend, editor, then unit, lsp, demo, vsix,
// bench-smoke); editor never beside demo (see notBeside); until the packages are in, all lanes but
// one are kept for the layers waiting on them. Two, because the suite is CPU-bound on this 2-core
// machine: three at a time took 746 s against 684 s (backend 623 s and editor 488 s, from 389 and 341).
// Each test layer gets a TMPDIR of its own (see runLayer). One layer's output is
// shown as it comes; the others' is kept and printed whole when they end: each reads in one piece.
// Every layer runs even when an earlier one failed; the exit code is non-zero if any failed.
// A layer that cannot run fails with its reason: nothing skips itself to green.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGES_READY } from './support/one-time-installs.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const npx = (...args) => ['npx', ['--no-install', ...args]];
const LANES = Number(process.env.SESSION_OPS_TEST_LANES ?? 2);
if (!Number.isInteger(LANES) || LANES < 1) {
  console.error(
    `SESSION_OPS_TEST_LANES must be a whole number of at least 1, not "${process.env.SESSION_OPS_TEST_LANES}"`,
  );
  process.exit(2);
}

// In the order they start when they can (build, lint and the installs at once): the long, mostly
// waiting layers first.
const all = [
  { name: 'build', cmd: ['npm', ['run', 'build']], required: true },
  { name: 'lint', cmd: ['npm', ['run', 'lint']], required: true },
  { name: 'installs', cmd: ['node', ['test/support/one-time-installs.mjs']], beside: true },
  // backend needs the Debian packages (Chromium, Prometheus, Alertmanager), not code-server.
  { name: 'backend', cmd: npx('mocha', '--config', 'test/backend/.mocharc.cjs'), installs: 'packages', heavy: true },
  // editor and demo are the two long runs of a real editor, too heavy together on two cores.
  {
    name: 'editor',
    cmd: ['node', ['test/editor/run-code-server.mjs']],
    installs: true,
    notBeside: ['demo'],
    heavy: true,
  },
  { name: 'unit', cmd: npx('mocha', '--config', 'test/unit/.mocharc.json') },
  { name: 'lsp', cmd: npx('mocha', '--config', 'test/lsp/.mocharc.json') },
  {
    name: 'demo',
    cmd: ['node', ['scripts/demo.mjs', '--screenshots', 'test-results/demo']],
    installs: true,
    notBeside: ['editor'],
  },
  { name: 'vsix', cmd: ['node', ['test/editor/run-vsix-check.mjs']], installs: true },
  { name: 'bench-smoke', cmd: ['node', ['bench/smoke.mjs']], installs: true },
];
const unknown = only.filter((n) => !all.some((l) => l.name === n));
if (unknown.length > 0) {
  console.error(`unknown layer(s): ${unknown.join(', ')} (layers: ${all.map((l) => l.name).join(', ')})`);
  process.exit(2);
}
const selected = all.filter((l) => !l.beside && (only.length === 0 || l.required || only.includes(l.name)));
const wantInstalls = selected.some((l) => l.installs) || only.includes('installs');
const layers = all.filter((l) => selected.includes(l) || (l.beside && wantInstalls));

const TAIL_LINES = 60;
const started = Date.now();
const since = (t) => ((t - started) / 1000).toFixed(0);

// ------------------------------------------------------------------ output: one layer live, the others kept whole

let live; // the layer whose output goes straight through
const running = []; // started and not ended, in start order
const ended = []; // ended while another was live: printed whole after it

function header(job) {
  console.log(`\n=== ${job.layer.name} === (started at +${since(job.t0)} s)`);
}
function footer(job) {
  console.log(`=== ${job.layer.name}: ${job.result.ok ? 'pass' : 'FAIL'} in ${job.result.seconds.toFixed(1)} s ===`);
}
function replay(job) {
  for (const [stream, chunk] of job.kept) stream.write(chunk);
  job.kept = [];
}
function goLive(job) {
  live = job;
  header(job);
  replay(job);
}
function onStart(job) {
  running.push(job);
  if (!live) goLive(job);
}
let packagesReady = false; // the installs printed PACKAGES_READY (or ended)
let onPackagesReady = () => {};
function onOutput(job, stream, chunk) {
  if (job.layer.name === 'installs' && !packagesReady && chunk.toString('utf8').includes(PACKAGES_READY)) {
    packagesReady = true;
    onPackagesReady();
  }
  if (job === live) stream.write(chunk);
  else job.kept.push([stream, chunk]);
}
function onEnd(job) {
  running.splice(running.indexOf(job), 1);
  if (job !== live) {
    ended.push(job);
    return;
  }
  footer(job);
  live = undefined;
  for (const done of ended.splice(0)) {
    header(done);
    replay(done);
    footer(done);
  }
  // The next live layer is chosen once the scheduler has started what it can (pickLive).
}
/** A test layer's progress rather than the installs' when both run. */
function pickLive() {
  const job = running.find((j) => !j.layer.beside) ?? running[0];
  if (!live && job) goLive(job);
}

// ------------------------------------------------------------------ one layer

/** Runs a layer, its output through the printer above, keeping its last lines for the summary. */
function runLayer(layer) {
  return new Promise((resolve) => {
    const job = { layer, t0: Date.now(), kept: [], tail: [], result: undefined };
    let partial = '';
    const keep = (chunk) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      job.tail.push(...lines);
      if (job.tail.length > TAIL_LINES) job.tail.splice(0, job.tail.length - TAIL_LINES);
    };
    onStart(job);
    // Each test layer gets a temporary folder of its own (TMPDIR), removed when it ends: opencode
    // reads the folder above a session's directory on its first turn there, and in a /tmp crowded
    // by the other layers that cost it seconds of CPU per server (measured: a server in a fresh
    // folder went quiet about 15 s after its first turn; in this machine's /tmp it was still busy at 30 s).
    const tmp =
      layer.required || layer.beside ? undefined : mkdtempSync(path.join(os.tmpdir(), `session-ops-${layer.name}-`));
    const env = tmp ? { ...process.env, TMPDIR: tmp } : process.env;
    const child = spawn(layer.cmd[0], layer.cmd[1], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env });
    child.stdout.on('data', (c) => {
      onOutput(job, process.stdout, c);
      keep(c);
    });
    child.stderr.on('data', (c) => {
      onOutput(job, process.stderr, c);
      keep(c);
    });
    const finish = (status, signal, error) => {
      if (job.result) return;
      try {
        if (tmp) rmSync(tmp, { recursive: true, force: true, maxRetries: 2 });
      } catch (err) {
        console.error(`(could not remove ${tmp}: ${err.message})`);
      }
      if (partial) job.tail.push(partial);
      job.result = {
        name: layer.name,
        ok: status === 0,
        seconds: (Date.now() - job.t0) / 1000,
        why: error?.message ?? (signal ? `killed by ${signal}` : `exit ${status}`),
        tail: job.tail.slice(-TAIL_LINES),
      };
      onEnd(job);
      resolve(job.result);
    };
    child.on('error', (err) => finish(null, null, err));
    child.on('close', (status, signal) => finish(status, signal, undefined));
  });
}

// ------------------------------------------------------------------ the scheduler

const results = new Map(); // name -> result
const pending = [...layers];
const active = new Set();
let gateFailed = false;

const done = (name) => results.has(name) || !layers.some((l) => l.name === name);
const requiredPassed = () => layers.filter((l) => l.required).every((l) => results.get(l.name)?.ok === true);

/** The next layer that may start now, or undefined. */
function next() {
  if (gateFailed) return undefined;
  const lanesBusy = [...active].filter((l) => !l.beside).length;
  // Once the two heavy layers are over, one lane more: the rest (demo, bench-smoke, lsp, vsix)
  // spend much of their time waiting on rounds and settling, not on the CPU.
  const lanes = LANES > 1 && layers.filter((l) => l.heavy).every((l) => done(l.name)) ? LANES + 1 : LANES;
  const clash = (l) => [...active].some((a) => l.notBeside?.includes(a.name) || a.notBeside?.includes(l.name));
  // Until the Debian packages are in, all lanes but one are kept for the layers waiting on the
  // installs (the backend starts the moment they are; the code-server install goes on beside).
  const packagesIn = packagesReady || done('installs');
  const keep = LANES > 1 && !packagesIn && pending.some((l) => l.installs) ? LANES - 1 : 0;
  return pending.find(
    (l) =>
      l.beside ||
      (lanesBusy < lanes - (l.installs || l.required ? 0 : keep) &&
        (l.required || requiredPassed()) &&
        !clash(l) &&
        // a layer needing the installs waits for them, the backend only for the packages (and then
        // runs whatever they gave: it fails saying why)
        (!l.installs || done('installs') || (l.installs === 'packages' && packagesIn))),
  );
}

await new Promise((resolveAll) => {
  const pump = () => {
    for (let layer = next(); layer; layer = next()) {
      pending.splice(pending.indexOf(layer), 1);
      active.add(layer);
      runLayer(layer).then((r) => {
        active.delete(layer);
        results.set(layer.name, r);
        if (layer.required && !r.ok) gateFailed = true;
        pump();
      });
    }
    pickLive();
    if (active.size === 0) resolveAll();
  };
  onPackagesReady = pump;
  pump();
});

// ------------------------------------------------------------------ the summary

const ran = layers.filter((l) => results.has(l.name)).map((l) => results.get(l.name));
console.log('\n=== summary ===');
console.log('layer       result  seconds');
for (const r of ran)
  console.log(
    `${r.name.padEnd(11)} ${(r.ok ? 'pass' : 'FAIL').padEnd(7)} ${r.seconds.toFixed(1).padStart(7)}${r.ok ? '' : `  (${r.why})`}`,
  );
console.log(`total                 ${((Date.now() - started) / 1000).toFixed(1).padStart(7)}`);
if (LANES > 1) console.log(`(${LANES} layers at a time after build and lint: a layer's seconds are its own wall time)`);
const failed = ran.filter((r) => !r.ok);
// A failed layer's last lines again, next to the summary: a log read from its end shows why.
for (const r of failed) {
  console.log(`\n=== last ${r.tail.length} lines of the failed layer ${r.name} ===`);
  console.log(r.tail.join('\n'));
}

if (failed.length > 0 || ran.length < layers.length) {
  console.error(`\nnpm test FAILED: ${failed.map((r) => r.name).join(', ') || 'build'}`);
  process.exit(1);
}
console.log('\nnpm test passed');

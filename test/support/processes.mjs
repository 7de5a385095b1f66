// Every child process a bench or an editor runner starts goes through here, so that none outlives
// it: each child gets its own process group (detached), and on every exit path (normal exit,
// SIGINT, SIGTERM, SIGHUP, an uncaught exception or unhandled rejection) the whole group of each
// child still running is killed (code-server's extension host, the language servers, opencode).
import { fork, spawn } from 'node:child_process';

const children = new Set();
let installed = false;

function killGroup(child, signal) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal); // the child's whole process group
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

/** Kills every tracked child's process group (synchronous: safe in an 'exit' handler). */
export function killAll(signal = 'SIGKILL') {
  for (const child of children) killGroup(child, signal);
}

function install() {
  if (installed) return;
  installed = true;
  process.on('exit', () => killAll('SIGKILL'));
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ]) {
    process.on(signal, () => {
      console.error(`\n[processes] ${signal}: stopping ${children.size} child process group(s)`);
      killAll('SIGKILL');
      process.exit(code);
    });
  }
  const crash = (label) => (err) => {
    console.error(`[processes] ${label}:`, err);
    killAll('SIGKILL');
    process.exit(1);
  };
  process.on('uncaughtException', crash('uncaught exception'));
  process.on('unhandledRejection', crash('unhandled rejection'));
}

/** Tracks a child started elsewhere (started with `detached: true` for its group to be killed). */
export function track(child) {
  install();
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** spawn(), in a process group of its own, tracked. */
export function spawnTracked(command, args, options = {}) {
  return track(spawn(command, args, { ...options, detached: true }));
}

/** fork(), in a process group of its own, tracked. */
export function forkTracked(modulePath, args, options = {}) {
  return track(fork(modulePath, args, { ...options, detached: true }));
}

/** Stops one tracked child's whole group: SIGTERM, then SIGKILL after graceMs. */
export async function stopGroup(child, graceMs = 2_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
  killGroup(child, 'SIGKILL'); // grandchildren left in the group
}

/** How many tracked children are still running (for tests and final checks). */
export function running() {
  return [...children].filter((c) => c.exitCode === null && c.signalCode === null).length;
}

// The suite's line to the harness that drives the browser (code-server runs only). Through it a
// test asks for a screenshot of the workbench or reads the rendered DOM, so assertions can look
// at what a person sees, not only at the API. Under @vscode/test-electron there is no harness:
// screenshots are then logged as unavailable and DOM queries throw.
import * as vscode from 'vscode';

export interface DomNode {
  text: string;
  ariaLabel: string | null;
  className: string;
  title: string | null;
}

function harnessUrl(): string | undefined {
  return process.env.SESSION_OPS_HARNESS_URL;
}

async function call<T>(endpoint: string, body: unknown, timeoutMs = 60_000, base = harnessUrl()): Promise<T> {
  if (!base)
    throw new Error('no browser harness (SESSION_OPS_HARNESS_URL unset): DOM checks need the code-server runner');
  const res = await fetch(`${base}/${endpoint}`, {
    method: 'POST',
    signal: AbortSignal.timeout(timeoutMs),
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`harness ${endpoint} failed: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

export const hasBrowser = (): boolean => harnessUrl() !== undefined;

/**
 * Opens a second window: another code-server with its own extension host (code-server runs only),
 * running the suite `suite` (index.ts) with `env`. Its answer comes at once; secondWindowExit()
 * waits for the run's exit code.
 */
export async function openSecondWindow(suite: string, env: Record<string, string>): Promise<void> {
  await call('second-window', { suite, env });
}

/** The exit code of the window opened by openSecondWindow (0: its suite passed). */
export async function secondWindowExit(timeoutMs = 240_000): Promise<number> {
  return (await call<{ exitCode: number }>('second-window-result', {}, timeoutMs)).exitCode;
}

/**
 * Returns once `parties` callers of `name` have come: this window, and a window opened by
 * openSecondWindow (which reaches the first window's harness through SESSION_OPS_PEER_URL).
 */
export async function barrier(name: string, parties: number, timeoutMs = 180_000): Promise<void> {
  await call('barrier', { name, parties }, timeoutMs, process.env.SESSION_OPS_PEER_URL ?? harnessUrl());
}

/**
 * When the code-server runner started this suite (it sets SESSION_OPS_EDITOR_RUNNER), the browser
 * harness must answer and see the workbench; otherwise every DOM check would be skipped.
 */
export async function assertHarnessReached(): Promise<void> {
  if (process.env.SESSION_OPS_EDITOR_RUNNER !== 'code-server') return;
  if (!hasBrowser())
    throw new Error('run through code-server but SESSION_OPS_HARNESS_URL is unset: DOM checks would be no-ops');
  const ping = await call<{ workbench: boolean }>('ping', {});
  if (!ping.workbench)
    throw new Error(
      'the browser harness answered but sees no workbench (.monaco-workbench): DOM checks would be no-ops',
    );
}

/** Saves test-results/<name>.png of the whole workbench. */
export async function screenshot(name: string): Promise<void> {
  if (!hasBrowser()) {
    console.log(`[harness] screenshot "${name}" skipped: not running under the code-server harness`);
    return;
  }
  await call('screenshot', { name });
}

/** Every element matching the CSS selector, as rendered in the workbench. */
export function query(selector: string): Promise<DomNode[]> {
  return call<DomNode[]>('query', { selector });
}

/** Clicks the first element matching the selector (`right`: opens its context menu). */
export async function click(selector: string, button: 'left' | 'right' = 'left'): Promise<void> {
  await call('click', { selector, button });
}

/** Presses keys in the workbench (Playwright key names, e.g. "Control+Space"). */
export async function press(keys: string): Promise<void> {
  await call('press', { keys });
}

/** Types text into whatever has focus in the workbench (an input box, the editor). */
export async function type(text: string): Promise<void> {
  await call('type', { text });
}

/** Fills the first element matching the selector with the text (and presses Enter on it when `submit`). */
export async function fill(selector: string, text: string, submit = false): Promise<void> {
  await call('fill', { selector, text, submit });
}

/**
 * Awaits a command that waits for the user (a quick pick, an input box), at most `ms`. On time out
 * the quick input is closed, so the command ends now and a timed-out test never resumes later to
 * undo what the next test set up; then it throws, naming what never finished.
 */
export async function settleWithin<T>(pending: Thenable<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([Promise.resolve(pending), timedOut]);
  } catch (err) {
    await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/** The rendered tree/list rows whose aria-label matches. */
export async function rows(match?: RegExp): Promise<DomNode[]> {
  const all = await query('.monaco-list-row[aria-label]');
  return match ? all.filter((n) => match.test(n.ariaLabel ?? '')) : all;
}

/** The shared polling helper (test/support/wait-for.ts), re-exported for the suite's files. */
export { waitFor } from '../../support/wait-for';

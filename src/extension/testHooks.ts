// Test-only hooks into the session monitor, for the editor suite: the extension's clock (the
// system's, with an offset the tests move on) and the shortest spacing a verdict accepts, so the views tests need not wait
// 30 s of real time. And the answers to confirmation modals, which VS Code refuses to show in
// extension tests: `sessionOps.test.answerModals` takes the buttons to press in turn (null:
// dismissed; no list: modals are shown again) and returns the modals shown since the last call.
// And `sessionOps.test.setDaemonToken` (url, token): a daemon's token into secret storage without
// the input box (bench/views.mjs attached mode). These commands exist only when the editor test runner set SESSION_OPS_TEST_HOOKS=1 in the
// extension host's environment; they are not contributed in package.json and never registered
// for users.
import * as vscode from 'vscode';
import { offsetClock, systemClock, type Clock } from '../core/clock';
import type { SessionMonitor } from '../core/monitor/sessionMonitor';
import { scriptModals, type ScriptedModal } from './commands/ui/confirm';

export const TEST_HOOKS_ENV = 'SESSION_OPS_TEST_HOOKS';
export const CONFIGURE_MONITOR_COMMAND = 'sessionOps.test.configureMonitor';
export const ANSWER_MODALS_COMMAND = 'sessionOps.test.answerModals';
export const SET_DAEMON_TOKEN_COMMAND = 'sessionOps.test.setDaemonToken';

export interface MonitorTestSettings {
  /** The shortest spacing a verdict accepts; null restores the spec's 30 s. */
  minSpacingMs?: number | null;
  /** The spacing between sampling rounds, below the setting's 30 s minimum (load runs); a settings change restores it. */
  spacingMs?: number;
  /** Moves the monitor's clock forward (cumulative); 0 with reset restores real time. */
  advanceClockMs?: number;
  resetClock?: boolean;
  /** The attached daemons' coalescing of event-stream changes for daemons attached from now on (0: one change per event); null restores the default. */
  daemonCoalesceMs?: number | null;
}

export interface TestHooks {
  readonly enabled: boolean;
  /** The extension's one clock: the system's, plus (hooks enabled) the offset the tests set. */
  readonly clock: Clock;
  register(monitor: SessionMonitor): vscode.Disposable;
  /** The coalescing interval set by configureMonitor's daemonCoalesceMs (undefined: the default). */
  daemonCoalesceMs(): number | undefined;
  /** sessionOps.test.setDaemonToken, into the window's daemon tokens. */
  registerDaemonTokens(tokens: { set(url: string, token: string): Promise<void> }): vscode.Disposable;
}

export function createTestHooks(env: NodeJS.ProcessEnv = process.env): TestHooks {
  const enabled = env[TEST_HOOKS_ENV] === '1';
  let offsetMs = 0;
  let coalesceMs: number | undefined;
  return {
    enabled,
    clock: enabled ? offsetClock(systemClock, () => offsetMs) : systemClock,
    register(monitor) {
      if (!enabled) return new vscode.Disposable(() => undefined);
      return vscode.Disposable.from(registerConfigureMonitor(monitor), registerAnswerModals());
    },
    daemonCoalesceMs: () => coalesceMs,
    registerDaemonTokens(tokens) {
      if (!enabled) return new vscode.Disposable(() => undefined);
      return vscode.commands.registerCommand(SET_DAEMON_TOKEN_COMMAND, async (url: unknown, token: unknown) => {
        if (typeof url !== 'string' || typeof token !== 'string')
          throw new Error('setDaemonToken(url, token): strings');
        await tokens.set(url, token);
      });
    },
  };

  function registerAnswerModals(): vscode.Disposable {
    let shown: Array<ScriptedModal & { answer: string | null }> = [];
    const command = vscode.commands.registerCommand(ANSWER_MODALS_COMMAND, (answers?: Array<string | null>) => {
      const queue = answers ? [...answers] : null;
      scriptModals(
        queue
          ? (modal) => {
              const answer = queue.shift() ?? null;
              shown.push({ ...modal, answer });
              return answer ?? undefined;
            }
          : null,
      );
      const since = shown;
      shown = [];
      return since;
    });
    return vscode.Disposable.from(command, { dispose: () => scriptModals(null) });
  }

  function registerConfigureMonitor(monitor: SessionMonitor): vscode.Disposable {
    return vscode.commands.registerCommand(CONFIGURE_MONITOR_COMMAND, (settings: MonitorTestSettings = {}) => {
      if (settings.minSpacingMs !== undefined) {
        const v = settings.minSpacingMs;
        if (v !== null && (!Number.isFinite(v) || v < 0))
          throw new Error(`minSpacingMs must be a non-negative number or null, got ${String(v)}`);
        monitor.updateOptions({ minSpacingMs: v ?? undefined });
      }
      if (settings.spacingMs !== undefined) {
        const v = settings.spacingMs;
        if (!Number.isFinite(v) || v < 100) throw new Error(`spacingMs must be a number >= 100, got ${String(v)}`);
        monitor.updateOptions({ spacingMs: v });
      }
      if (settings.daemonCoalesceMs !== undefined) {
        const v = settings.daemonCoalesceMs;
        if (v !== null && (!Number.isFinite(v) || v < 0))
          throw new Error(`daemonCoalesceMs must be a non-negative number or null, got ${String(v)}`);
        coalesceMs = v ?? undefined;
      }
      if (settings.resetClock) offsetMs = 0;
      if (settings.advanceClockMs !== undefined) {
        if (!Number.isFinite(settings.advanceClockMs)) throw new Error('advanceClockMs must be a number');
        offsetMs += settings.advanceClockMs;
      }
      return { minSpacingMs: settings.minSpacingMs, spacingMs: settings.spacingMs, clockOffsetMs: offsetMs };
    });
  }
}

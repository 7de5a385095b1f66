// Where Session Ops keeps what outlives one process (quota marks, the per-session locks, the
// operator's plans): SESSION_OPS_STATE_DIR, else $XDG_STATE_HOME/session-ops, else
// $HOME/.local/state/session-ops. The CLI, the extension and the daemon resolve it the same way,
// so that they share one lock per session on one machine.
import path from 'node:path';

/**
 * The state directory from the environment, or null when SESSION_OPS_STATE_DIR is empty or
 * neither it, XDG_STATE_HOME nor HOME is set.
 */
export function stateDir(env: Record<string, string | undefined>): string | null {
  const explicit = env.SESSION_OPS_STATE_DIR;
  if (explicit !== undefined) return explicit.trim() === '' ? null : path.resolve(explicit);
  const xdg = env.XDG_STATE_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'session-ops');
  const home = env.HOME ?? env.USERPROFILE;
  return home && path.isAbsolute(home) ? path.join(home, '.local', 'state', 'session-ops') : null;
}

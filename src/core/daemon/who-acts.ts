// Who acts automatically on which fleet, in one line for the status bar: this window's automatic
// settings act only on the backends it samples (sessionOps.backends); each attached daemon's fleet
// is the daemon's own (its automatic mode, or nobody). No fleet is acted on by two operators.
// Pure; never imports 'vscode'.
import type { AutomaticSwitches } from '../settings/operator-settings';

const NAMES: Record<keyof AutomaticSwitches, string> = {
  abortHung: 'abort hung',
  wakeIdle: 'wake idle',
  recoverQuotaWalls: 'recover quota walls',
  abortOverBudget: 'abort over budget',
};

export function whoActs(
  local: { switches: AutomaticSwitches; sampledBackends: number },
  daemons: readonly { name: string }[],
): string {
  const parts: string[] = [];
  const on = (Object.keys(NAMES) as Array<keyof AutomaticSwitches>)
    .filter((k) => local.switches[k])
    .map((k) => NAMES[k]);
  if (local.sampledBackends > 0 || daemons.length === 0)
    parts.push(on.length ? `local (this window: ${on.join(', ')})` : 'off in this window');
  for (const d of daemons) parts.push(`daemon ${d.name} (its fleet)`);
  return `Automatic: ${parts.join('; ')}`;
}

// The four parts of a fact baseline, asked one input box at a time.
import * as vscode from 'vscode';
import type { FactBaselineFacts } from '../../../core/actions';
import { factBaselineProblem } from '../../../core/prompt/fact-baseline';

/** Fact baseline (spec Endpoints rule 4): the event, numbered facts with sources and times, invalid assumptions, one assignment. */
/** `now`: the time a fact's timestamp defaults to (the monitor's clock). */
export async function askFacts(now: number): Promise<FactBaselineFacts | undefined> {
  const event = await vscode.window.showInputBox({
    title: 'Fact baseline 1/4: what happened (the event that made the worldview stale)',
    ignoreFocusOut: true,
  });
  if (!event) return undefined;
  const facts: FactBaselineFacts['facts'] = [];
  for (;;) {
    const statement = await vscode.window.showInputBox({
      title: `Fact baseline 2/4: fact ${facts.length + 1} (empty to finish)`,
      ignoreFocusOut: true,
    });
    if (statement === undefined) return undefined;
    if (statement.trim() === '') break;
    const source = await vscode.window.showInputBox({
      title: `Fact ${facts.length + 1}: artifact link (where to verify it)`,
      ignoreFocusOut: true,
    });
    if (source === undefined) return undefined;
    const at = await vscode.window.showInputBox({
      title: `Fact ${facts.length + 1}: timestamp`,
      value: new Date(now).toISOString(),
      ignoreFocusOut: true,
    });
    if (at === undefined) return undefined;
    facts.push({ statement, source, at });
  }
  if (facts.length === 0) throw new Error('a fact baseline needs at least one fact');
  const invalid = await vscode.window.showInputBox({
    title: 'Fact baseline 3/4: standing assumptions now invalid (separate with ;), or none',
    ignoreFocusOut: true,
  });
  if (invalid === undefined) return undefined;
  const step = await vscode.window.showInputBox({
    title: 'Fact baseline 4/4: one concrete assignment (empty: explicit standby)',
    ignoreFocusOut: true,
  });
  if (step === undefined) return undefined;
  const until = step.trim()
    ? ''
    : await vscode.window.showInputBox({
        title: 'Fact baseline 4/4: standby until (a time, or what ends it)',
        ignoreFocusOut: true,
      });
  if (until === undefined) return undefined;
  const baseline: FactBaselineFacts = {
    event,
    facts,
    invalidAssumptions: invalid
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean),
    assignment: step.trim() ? { kind: 'task', step: step.trim() } : { kind: 'standby', until: until.trim() },
  };
  const problem = factBaselineProblem({ ...baseline, invalidAssumptions: baseline.invalidAssumptions ?? [] });
  if (problem) throw new Error(`Fact baseline refused, ${problem}`);
  return baseline;
}

// The prompt of a template for a session row: its task (the title), why it is woken (hung or idle),
// its failure text and quota wall, the model it goes out on, and the worktree inventory.
import {
  composePrompt,
  type Authority,
  type PromptTemplate,
  type Composed,
  type FactBaselineFacts,
  type Inventory,
} from '../actions';
import type { EpochMs, ModelRef } from '../model';
import type { SessionRow } from '../monitor/row';

export interface RowPromptInputs {
  now: EpochMs;
  authority: Authority;
  inventory: Inventory;
  nextModel: ModelRef | null;
  baseline: FactBaselineFacts | null;
}

export function composeForRow(row: SessionRow, template: PromptTemplate, inputs: RowPromptInputs): Composed {
  return composePrompt(template, {
    now: inputs.now,
    authority: inputs.authority,
    inventory: inputs.inventory,
    task: row.title,
    wakeReason: row.verdict === 'hung' ? 'hung' : 'idle',
    failureText: row.failureText,
    wall: row.quotaWall ? { ...row.quotaWall, text: row.failureText } : null,
    nextModel: inputs.nextModel,
    baseline: inputs.baseline,
  });
}

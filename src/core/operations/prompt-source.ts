// What an operator's prompt says: the template a wake of a row sends, the prompt of a template for
// the row (its worktree's inventory, whom it speaks for, the worker's durable record), the model a
// reviewed wake would go out on, and the provider listing a person picks from.
import {
  backendInventory,
  chooseModel,
  takeInventory,
  type Authority,
  type Composed,
  type FactBaselineFacts,
  type ModelChoice,
  type PromptTemplate,
} from '../actions';
import type { Assigner } from '../actions/assignment';
import { assignedBy } from '../actions/authority';
import { gitInventory } from '../actions/git-inventory';
import type { ModelRef, ProviderListing } from '../model';
import type { SessionRow } from '../monitor/row';
import type { OperatorAuthority } from './operator-authority';
import type { OperatorCore } from './operator-core';
import { composeForRow } from './row-prompt';

export interface ComposeOptions {
  baseline?: FactBaselineFacts;
  /** Whom it speaks for, resolved once for the act; absent: resolved now. */
  authority?: Authority;
  holdsAuthority?: boolean;
  /** The worker's recorded assigner when the caller read it already (undefined: read now). */
  assigned?: Assigner | null;
}

export class PromptSource {
  constructor(
    private readonly core: OperatorCore,
    private readonly authority: OperatorAuthority,
  ) {}

  /** The prompt template a wake of this session sends: the quota-wall prompt after a wall, else the wake prompt. */
  wakeTemplate(row: SessionRow): PromptTemplate {
    return row.quotaWall ? 'quota-wake' : 'wake';
  }

  /** The prompt of `template` for the session, on `nextModel`, with its worktree's inventory. */
  async compose(
    row: SessionRow,
    template: PromptTemplate,
    nextModel: ModelRef | null,
    options: ComposeOptions = {},
  ): Promise<Composed> {
    const client = await this.core.client(row.backendKey);
    const sources = this.core.o.inventory?.(client) ?? [backendInventory(client), gitInventory()];
    const inventory = await takeInventory(sources, { directory: row.directory });
    // Who assigned the worker (its durable record): compared (rule 1), and where reports go when no orchestrator is set here.
    const recorded = options.assigned === undefined ? await this.authority.assigner(row) : options.assigned;
    const holds = options.holdsAuthority ?? false;
    const speaks = options.authority ? { ...options.authority, held: holds } : this.authority.of(row, holds);
    return composeForRow(row, template, {
      now: this.core.now(),
      authority: assignedBy(speaks, null, recorded),
      inventory,
      nextModel,
      baseline: options.baseline ?? null,
    });
  }

  /** The model a reviewed wake prompt would go out on (the core's choice for the session now). */
  async chooseModel(row: SessionRow): Promise<ModelChoice> {
    const client = await this.core.client(row.backendKey);
    const [listing, newest] = await Promise.all([
      client.listProviders(row.directory),
      client.newestMessage(row.directory, row.id),
    ]);
    const last =
      newest?.providerID && newest.modelID ? { providerID: newest.providerID, modelID: newest.modelID } : null;
    return chooseModel({
      requested: null,
      last,
      listing,
      wallProvider: row.quotaWall?.provider ?? null,
      providers: [...this.core.settings['recovery.providers']],
    });
  }

  async providers(row: SessionRow): Promise<ProviderListing> {
    return (await this.core.client(row.backendKey)).listProviders(row.directory);
  }
}

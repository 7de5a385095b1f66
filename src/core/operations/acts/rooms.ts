// What an action module uses of the operator's rooms: the shared core, the one action path (the
// lock is taken there), whom prompts speak for, what they say, the scheduled retries and the state.
import type { ActRunner } from '../act-runner';
import type { OperatorAuthority } from '../operator-authority';
import type { OperatorCore } from '../operator-core';
import type { OperatorStore } from '../operator-store';
import type { PromptSource } from '../prompt-source';
import type { RetryScheduler } from '../retry-scheduler';

export interface ActRooms {
  core: OperatorCore;
  runner: ActRunner;
  authority: OperatorAuthority;
  prompts: PromptSource;
  retries: RetryScheduler;
  store: OperatorStore;
}

export {
  guardPrompt,
  isGuardedPrompt,
  type GuardedPrompt,
  type GuardInput,
  type GuardResult,
  type SendRefusal,
  type SendRefusalCode,
} from './guard';
export {
  chooseModel,
  parseModelRef,
  qualifies,
  type ModelChoice,
  type ModelChoiceInput,
  type ModelSource,
} from './model-choice';
export { abortSession, QUEUED_PROMPTS_NOTE, type AbortOptions, type AbortOutcome, type AbortResult } from './abort';
export { confirmStarted, type Confirmation, type ConfirmOptions, type ConfirmedBy } from './confirm';
export { wakeSession, type WakeOutcome, type WakeRequest, type WakeResult } from './wake';
export {
  recoverSession,
  RECOVERY_SPACING_MS,
  type MarkConsidered,
  type RecoverDecision,
  type RecoverRequest,
  type RecoverResult,
} from './recover';
export { dispatchTask, type DispatchOutcome, type DispatchRequest, type DispatchResult } from './dispatch';
export {
  composePrompt,
  readBaselineFacts,
  PROMPT_TEMPLATES as PROMPT_TEMPLATES,
  type ComposeInputs,
  type PromptTemplate,
  type Composed,
  type FactBaselineFacts,
} from './compose';
export {
  resolveAuthority,
  retaskRefusal,
  assignedBy,
  orchestratorIn,
  ticketIn,
  ORCHESTRATOR_PLACEHOLDER,
  TICKET_PLACEHOLDER,
  type Authority,
  type AuthorityInput,
} from './authority';
export {
  backendInventory,
  takeInventory,
  type Inventory,
  type InventoryRequest,
  type WorktreeInventory,
} from './inventory';
export {
  chooseAndSend,
  lastModelOf,
  type PromptFacts,
  type PromptSource,
  type SendInput,
  type SendOutcome,
} from './send';
export { type ActionBackend, type ActionContext, type ActionFailure } from './executor-context';
export { promptBuilder, type PromptBuilder, type PromptBuilderOptions } from './prompt-builder';
export {
  actOnce,
  basisOf,
  movedSince,
  type ActOutcome,
  type ActRefusal,
  type ActRefusalCode,
  type DecisionBasis,
  type FreshRead,
} from './reverify';
export { answerRequest, type AnswerRequest, type AnswerResult } from './answer';

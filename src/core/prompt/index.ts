export {
  ANTI_RE_HANG_CLAUSE,
  EVIDENCE_RULE,
  QUOTA_SELF_REPORT_CLAUSE,
  completionReportBlock,
  uncommittedFilesSection,
  type ReportProtocol,
} from './clauses';
export {
  composeFactBaseline,
  factBaselineProblem,
  NO_INVALID_ASSUMPTION,
  type Assignment,
  type Fact,
  type FactBaselineInput,
  type FactBaselineParts,
} from './fact-baseline';
export { composeWakePrompt, type WakeInput, type WakeReason } from './wake';
export { composeQuotaWallWakePrompt, type QuotaWakeInput } from './quota-wake';
export { composeDispatchPrompt } from './dispatch';
export { parsePorcelainZ } from './worktree';
export { queuedPromptOf, queuedPromptSection, withQueuedPrompt, type QueuedPrompt } from './queued';

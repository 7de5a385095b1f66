export { judgeVerdict, movement, MIN_SPACING_MS, type Movement, type VerdictOptions } from './verdict';
export { classifyFailure, categoryFromReason, categoryFromText, reasonForCategory, QUOTA_REASONS } from './failure-category';
export { tailProbe, retryWall, observedWall, detectQuotaWall, allFreeAt } from './quota-wall';
export { chooseAction, DEFAULT_RESET_WITHIN_REACH_MS, type ActionInput } from './action';
export { freeProviders, chooseRecoveryProvider, modelOn, earliestConnectedReset, markedProviders } from './provider-choice';
export { preDispatchCheck, type DispatchCheck } from './pre-dispatch';
export { assessSession, samplesBySession, type AssessOptions } from './assess';
export { buildStatusDocument, statusSession, statusProviders, type StatusDocument, type StatusSession, type StatusProvider } from './status-document';

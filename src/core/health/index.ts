export { judgeVerdict, movement, retryText, MIN_SPACING_MS, type Movement, type VerdictOptions } from './verdict';
export {
  classifyFailure,
  categoryFromReason,
  categoryFromText,
  reasonForCategory,
  QUOTA_REASONS,
} from './failure-category';
export { tailProbe, retryWall, observedWall, detectQuotaWall, allFreeAt, type WallOptions } from './quota-wall';
export { chooseAction, type ActionInput } from './action';
export {
  freeProviders,
  chooseRecoveryProvider,
  inScope,
  parseProviderScope,
  BUILT_IN_PROVIDER,
  type ProviderScope,
  modelOn,
  earliestConnectedReset,
  markedProviders,
} from './provider-choice';
export { preDispatchCheck, type DispatchCheck } from './pre-dispatch';
export { assessSession, unreadableAssessment, type AssessOptions } from './assess';
export { headline, type Headline, type HeadlineInput } from './precedence';
export { SampleHistory, type SampleHistoryOptions } from './sample-history';
export { collectSettledSamples, assessSettled, type SettledSamples, type SettledSamplesOptions } from './sampling';
export { sampleDirectoryOnce, listedIds, type SampleDirectoryOptions, type SamplingBackend } from './sample-directory';
export { recordWalls, type MarkRecorder } from './record-walls';
export {
  buildStatusDocument,
  statusSession,
  statusProviders,
  type StatusDocument,
  type StatusSession,
  type StatusProvider,
} from './status-document';

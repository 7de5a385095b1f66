export {
  BackendClient,
  type BackendClientOptions,
  type CallOptions,
  type PendingRequests,
  type PermissionReply,
  type SampleRound,
  type SessionList,
} from './client';
export { BackendError, isBackendError, type BackendErrorCode } from './errors';
export { QuotaMarkBook, type StoredMark, type WallObservation } from './quota-marks';
export { textPrompt, payloadProblem, type PromptPayload } from './payload';
export {
  readEventStream,
  readGlobalEventStream,
  toBackendEvent,
  toGlobalEvent,
  type BackendEvent,
  type EventStreamOptions,
  type EventStreamState,
  type GlobalBackendEvent,
  type GlobalEventStreamOptions,
} from './events';
export { isValidSessionId } from './id-checks';
export { DIALECTS, dialectDisplayName, type DialectAdapter } from './dialects';
export { ActivityCounter } from './activity';

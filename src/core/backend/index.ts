export { BackendClient, type BackendClientOptions, type CallOptions, type SampleRound, type SessionList } from './client';
export { BackendError, isBackendError, type BackendErrorKind } from './errors';
export { QuotaMarkBook, type StoredMark, type WallObservation } from './quota-marks';
export { textPrompt, payloadProblem, type PromptPayload } from './payload';
export { readEventStream, toBackendEvent, type BackendEvent, type EventStreamOptions, type EventStreamState } from './events';
export { isValidSessionId } from './ids';
export { ActivityCounter } from './activity';

// The spec's dialect: sessions carry `state` and `progress`, providers carry quota objects; no
// event stream, no status map, no pending requests, no todo lists, no cost.
import { specSession } from '../wire/sessions';
import type { DialectAdapter } from './adapter';

export const specDialect: DialectAdapter = {
  dialect: 'spec',
  displayName: 'spec dialect',
  capabilities: Object.freeze({
    events: false,
    sessionStatus: false,
    quotaObjects: true,
    progress: true,
    permissions: false,
    questions: false,
    todos: false,
    globalEvents: false,
    sessionCost: false,
    messageCost: false,
    promptVariant: false,
    createSession: false,
  }),
  toSessions: (raw) => raw.map(specSession),
  progressFromMessage: () => null,
};

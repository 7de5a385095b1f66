// Stock opencode 1.18: state from GET /session/status (idle sessions absent), progress derived from
// the newest message, no quota objects (the caller keeps its own marks), an event stream per
// directory and a global one, pending permissions and questions, todo lists, cost and tokens on
// each session of the list and on each assistant message.
import { deriveProgress } from '../wire/opencode-progress';
import { opencodeSession, type StatusEntry } from '../wire/sessions';
import type { DialectAdapter } from './adapter';

const NO_STATUS: ReadonlyMap<string, StatusEntry> = new Map();

export const opencodeDialect: DialectAdapter = {
  dialect: 'opencode',
  displayName: 'opencode',
  capabilities: Object.freeze({
    events: true,
    sessionStatus: true,
    quotaObjects: false,
    progress: false,
    permissions: true,
    questions: true,
    todos: true,
    globalEvents: true,
    sessionCost: true,
    messageCost: true,
    promptVariant: true,
    createSession: true,
  }),
  toSessions: (raw, status) => raw.map((s) => opencodeSession(s, status ?? NO_STATUS)),
  progressFromMessage: deriveProgress,
};

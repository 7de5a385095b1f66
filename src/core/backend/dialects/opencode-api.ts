// Stock opencode spoken to through its `/api` engine only (opencode 2, or `surface: api`): the
// sessions of GET /api/session (read into the old list's raw shape by ../wire/api-sessions.ts),
// state from GET /api/session/active, progress derived from the newest message (each model round
// is a new message id; the engine keeps no step counter in its sessions or messages), no quota
// objects, pending permissions and questions, no todo lists, cost only in the messages.
import { deriveProgress } from '../wire/opencode-progress';
import { opencodeSession, type StatusEntry } from '../wire/sessions';
import type { DialectAdapter } from './adapter';

const NO_STATUS: ReadonlyMap<string, StatusEntry> = new Map();

export const opencodeApiDialect: DialectAdapter = {
  dialect: 'opencode',
  displayName: 'opencode (/api)',
  capabilities: Object.freeze({
    events: true,
    sessionStatus: true,
    quotaObjects: false,
    progress: false,
    permissions: true,
    questions: true,
    todos: false,
    globalEvents: false,
    sessionCost: false,
    messageCost: true,
    // The variant travels in the session's model switch (POST /api/session/{id}/model {model:
    // {id, providerID, variant}}), re-read before the prompt. Sessions are created by the old
    // routes only: not offered on this engine.
    promptVariant: true,
    createSession: false,
  }),
  toSessions: (raw, status) => raw.map((s) => ({ ...opencodeSession(s, status ?? NO_STATUS), cost: null })),
  progressFromMessage: deriveProgress,
};

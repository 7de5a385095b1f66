// Answer a session waiting for a person: its pending permission (once, always, reject) or its
// question (answered, or rejected where the backend has a reject route: stock opencode), through the act-once path (the request must still be pending right before the POST).
import { answerRequest, type AnswerResult } from '../../actions/answer';
import type { SessionRow } from '../../monitor/row';
import { label } from '../operator-core';
import { outcomeOf } from '../action-outcome';
import type { Acted, AnswerAct } from '../requests';
import type { ActRooms } from './rooms';

export async function answerAct(rooms: ActRooms, req: AnswerAct): Promise<Acted<AnswerResult>> {
  const row = req.target;
  let logText: string;
  let rowText: string;
  let send: (client: Awaited<ReturnType<ActRooms['core']['client']>>) => Promise<unknown>;
  if ('permission' in req) {
    const waiting = waitingFor(row, 'permission');
    const reply = req.permission;
    const said = reply === 'once' ? 'allowed once' : reply === 'always' ? 'allowed always' : 'rejected';
    logText = `permission ${waiting.requestID} of ${row.id}: ${said}`;
    rowText = `${waiting.title}: ${said}`;
    send = (c) => c.replyPermission(row.directory, waiting.requestID, reply);
  } else if ('rejectQuestion' in req) {
    const waiting = waitingFor(row, 'question');
    logText = `question ${waiting.requestID} of ${row.id} rejected`;
    rowText = `${waiting.title}: rejected`;
    send = (c) => c.rejectQuestion(row.directory, waiting.requestID);
  } else {
    const waiting = waitingFor(row, 'question');
    const answers = req.question;
    logText = `question ${waiting.requestID} of ${row.id} answered`;
    rowText = `answered: ${answers.map((a) => a.join(', ')).join('; ')}`;
    send = (c) => c.replyQuestion(row.directory, waiting.requestID, answers);
  }
  const requestID = row.waiting!.requestID;
  return rooms.runner.run(
    row,
    'answer',
    'answering',
    {},
    async (ctx) => {
      const client = await rooms.core.client(row.backendKey);
      return answerRequest(ctx, { sessionId: row.id, requestID, send: () => send(client) });
    },
    (base, result) => {
      if (result.outcome === 'answered')
        return outcomeOf(base, { outcome: 'answered', rowText, message: logText, sent: true });
      const refused = result.outcome === 'refused';
      return outcomeOf(base, {
        outcome: refused ? 'refused' : 'failed',
        code: refused ? result.refusal.code : null,
        rowText: refused ? `refused: ${result.refusal.reason}` : result.message,
        message: result.message,
        notice: { level: refused ? 'warning' : 'error', text: result.message },
      });
    },
  );
}

function waitingFor(
  row: SessionRow,
  kind: 'permission' | 'question',
): NonNullable<SessionRow['waiting']> & { requestID: string } {
  if (!row.waiting || row.waiting.kind !== kind) throw new Error(`"${label(row)}" is not waiting for a ${kind}`);
  return row.waiting;
}

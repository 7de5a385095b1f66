// Stock opencode GET /question?directory=: the questions an agent asked with its question tool
// and that wait for a person. Each: {id: "que...", sessionID, questions: [{question, header,
// options: [{label, description}], multiple?, custom?}], tool?}. `custom` (free text allowed)
// defaults to true as on the server.
import type { QuestionItem, WaitingRequest } from '../../model';
import { isValidSessionId } from '../id-checks';
import { arr, looseStr, obj, str } from './shape';

export interface QuestionList {
  requests: WaitingRequest[];
  warnings: string[];
}

function readItem(v: unknown, where: string): QuestionItem {
  const q = obj(v, where);
  const options = (q.options === undefined ? [] : arr(q.options, `${where} options`)).map((o, i) => {
    const opt = obj(o, `${where} option ${i}`);
    return { label: str(opt.label, `${where} option ${i} label`), description: looseStr(opt.description) };
  });
  return {
    question: str(q.question, `${where} question`),
    header: looseStr(q.header),
    options,
    multiple: q.multiple === true,
    custom: q.custom !== false,
  };
}

export function readQuestionList(body: unknown): QuestionList {
  const list = arr(body, 'question list');
  const requests: WaitingRequest[] = [];
  const warnings: string[] = [];
  list.forEach((entry, i) => {
    const r = obj(entry, `question request ${i}`);
    const id = str(r.id, `question request ${i} id`);
    const sessionID = str(r.sessionID, `question request ${i} sessionID`);
    if (!isValidSessionId(id) || !isValidSessionId(sessionID)) {
      warnings.push(`question request ${JSON.stringify(id.slice(0, 80))} skipped: an id is not a safe path segment`);
      return;
    }
    const questions = arr(r.questions, `question request ${i} questions`).map((q, j) =>
      readItem(q, `question request ${i} question ${j}`),
    );
    const first = questions[0];
    requests.push({
      kind: 'question',
      requestID: id,
      sessionID,
      title: first ? `question: ${first.header ?? first.question}` : 'question',
      permission: null,
      questions,
    });
  });
  return { requests, warnings };
}

/** Checks answers before they are sent: one array of strings per question. Null when fine. */
export function answersProblem(answers: unknown): string | null {
  if (!Array.isArray(answers) || answers.length === 0)
    return 'answers must be a non-empty array (one array of labels per question)';
  for (const [i, a] of answers.entries()) {
    if (!Array.isArray(a)) return `answer ${i} is not an array of labels`;
    for (const label of a)
      if (typeof label !== 'string' || label.length > 10_000)
        return `answer ${i} holds something other than a label (a string up to 10,000 characters)`;
  }
  return null;
}

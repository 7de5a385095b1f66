// Stock opencode GET /session/{id}/todo (and the todo.updated event's `todos`): the session's todo
// list, [{content, status: pending|in_progress|completed|cancelled, priority}]. Only the counts
// and the item in progress are kept.
import type { TodoProgress } from '../../model';
import { arr, obj, str } from './shape';

export function readTodoList(body: unknown): TodoProgress {
  const list = arr(body, 'todo list');
  let done = 0;
  let total = 0;
  let inProgress: string | null = null;
  list.forEach((entry, i) => {
    const t = obj(entry, `todo ${i}`);
    const status = str(t.status, `todo ${i} status`);
    const content = typeof t.content === 'string' ? t.content : '';
    if (status === 'cancelled') return;
    total++;
    if (status === 'completed') done++;
    else if (status === 'in_progress' && inProgress === null) inProgress = content.slice(0, 200);
  });
  return { done, total, inProgress };
}

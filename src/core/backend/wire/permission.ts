// Stock opencode GET /permission?directory=: the pending permission requests (a tool call whose
// permission is `ask` waits for a person). Each: {id: "per...", sessionID, permission, patterns[],
// metadata, always[], tool?: {messageID, callID}}. `metadata` is never kept (it can echo command
// text at length); entries with unsafe ids are left out with a warning.
import type { WaitingRequest } from '../../model';
import { isValidSessionId } from '../id-checks';
import { arr, obj, str } from './shape';

export interface PermissionList {
  requests: WaitingRequest[];
  warnings: string[];
}

function strings(v: unknown, where: string): string[] {
  if (v === undefined || v === null) return [];
  return arr(v, where).map((x, i) => str(x, `${where}[${i}]`));
}

export function readPermissionList(body: unknown): PermissionList {
  const list = arr(body, 'permission list');
  const requests: WaitingRequest[] = [];
  const warnings: string[] = [];
  list.forEach((entry, i) => {
    const p = obj(entry, `permission ${i}`);
    const id = str(p.id, `permission ${i} id`);
    const sessionID = str(p.sessionID, `permission ${i} sessionID`);
    if (!isValidSessionId(id) || !isValidSessionId(sessionID)) {
      warnings.push(`permission request ${JSON.stringify(id.slice(0, 80))} skipped: an id is not a safe path segment`);
      return;
    }
    const tool = str(p.permission, `permission ${i} permission`);
    const patterns = strings(p.patterns, `permission ${i} patterns`);
    const always = strings(p.always, `permission ${i} always`);
    const shown =
      patterns.length > 0 ? `${tool} ${patterns.slice(0, 3).join(', ')}${patterns.length > 3 ? ' …' : ''}` : tool;
    requests.push({
      kind: 'permission',
      requestID: id,
      sessionID,
      title: `permission: ${shown}`,
      permission: { tool, patterns, always },
      questions: [],
    });
  });
  return { requests, warnings };
}

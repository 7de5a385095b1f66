// Session Ops: Clear Password. Removes a backend's credentials from the secret storage.
import type { SessionsNode } from '../../views/sessionsView';
import type { CommandContext } from '../command-context';
import { pickBackend } from '../ui/backends';

export async function clearPassword(deps: CommandContext, node?: SessionsNode): Promise<void> {
  const backend = await pickBackend(deps, node);
  if (!backend) return;
  await deps.passwords.delete(backend.key);
  deps.log.info(`credentials for ${backend.baseUrl} removed`);
  deps.sessions.refresh();
}

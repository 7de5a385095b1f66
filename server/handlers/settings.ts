// Settings changes (workspace/didChangeConfiguration) and the editor's environment
// (sessionOps/environment: Red Hat's YAML extension installed or removed).
import { EnvironmentNotification } from '../../src/shared/protocol';
import { readSettings } from '../../src/shared/settings';
import type { ServerContext } from '../server-context';
import type { GroupCoordinator } from '../groups';
import type { DocumentScheduler } from '../scheduler';

export function registerSettingsHandlers(
  ctx: ServerContext,
  scheduler: DocumentScheduler,
  groups: GroupCoordinator,
): void {
  ctx.connection.onDidChangeConfiguration((params) => {
    const sourceRoot = ctx.settings.pagesSourceRoot;
    const maxDocumentMB = ctx.settings.maxDocumentMB;
    readSettings(ctx.settings, params.settings);
    scheduler.reclassifyAll();
    if (ctx.settings.maxDocumentMB !== maxDocumentMB) scheduler.revalidateAll(); // a document may cross the size limit
    if (ctx.settings.pagesSourceRoot !== sourceRoot) groups.settingsChanged(); // the source-test check of every page set changed
  });

  ctx.connection.onNotification(EnvironmentNotification, (params) => {
    if (typeof params?.redhatYamlPresent === 'boolean') ctx.settings.redhatYamlPresent = params.redhatYamlPresent;
    scheduler.reclassifyAll();
  });
}

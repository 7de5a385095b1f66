// textDocument/definition: the session's definition, possibly in another file of the group.
import type { Location } from 'vscode-languageserver/node';
import type { ServerContext } from '../server-context';
import type { GroupCoordinator } from '../groups';
import type { FeatureEnv } from '../kinds/types';
import { readyDocument } from './ready';

export function registerDefinitionHandler(ctx: ServerContext, groups: GroupCoordinator): void {
  ctx.connection.onDefinition(async (params, token): Promise<Location | null> => {
    const s = await readyDocument(ctx, params.textDocument.uri, token);
    if (!s || !s.session.definition) return null;
    const env: FeatureEnv = { routeKeys: [], schemaFeatures: true, related: await groups.related(s.st) };
    const d = s.session.definition(s.text, params.position, env);
    return d ? { uri: ctx.store.uriOf(d.filePath), range: d.range } : null;
  });
}

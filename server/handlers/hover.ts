// textDocument/hover: the session's hover, with the other files of the document's group.
import { MarkupKind } from 'vscode-languageserver/node';
import type { ServerContext } from '../server-context';
import type { GroupCoordinator } from '../groups';
import type { FeatureEnv } from '../kinds/types';
import { schemaFeaturesFor } from '../yamlOverlap';
import { readyDocument } from './ready';

export function registerHoverHandler(ctx: ServerContext, groups: GroupCoordinator): void {
  ctx.connection.onHover(async (params, token) => {
    const s = await readyDocument(ctx, params.textDocument.uri, token);
    if (!s || !s.session.hover) return null;
    const env: FeatureEnv = {
      routeKeys: [],
      schemaFeatures: schemaFeaturesFor(ctx.settings, s.st, s.text),
      related: await groups.related(s.st),
    };
    const h = s.session.hover(s.text, params.position, env);
    return h ? { contents: { kind: MarkupKind.Markdown, value: h.markdown }, range: h.range } : null;
  });
}

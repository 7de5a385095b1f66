// The kinds of this build, in claim order. Adding a kind: write it next to routing.ts and page.ts
// (a DocumentKind, see types.ts) and register it here. The watch configuration comes first: its
// names (session-ops.yaml) are YAML files routing would otherwise take when named explicitly.
import { pageKind } from './page';
import { KindRegistry } from './registry';
import { routingKind } from './routing';
import { watchConfigKind } from './watch-config';

export function registerBuiltinKinds(registry: KindRegistry = new KindRegistry()): KindRegistry {
  registry.register(watchConfigKind);
  registry.register(routingKind);
  registry.register(pageKind);
  return registry;
}

// The kinds of this build, in claim order. Adding a kind: write it next to routing.ts and page.ts
// (a DocumentKind, see types.ts) and register it here.
import { pageKind } from './page';
import { KindRegistry } from './registry';
import { routingKind } from './routing';

export function registerBuiltinKinds(registry: KindRegistry = new KindRegistry()): KindRegistry {
  registry.register(routingKind);
  registry.register(pageKind);
  return registry;
}

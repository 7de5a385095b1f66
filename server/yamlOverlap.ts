// With Red Hat's YAML server present (and schemaDiagnostics "auto"), what it also reports or
// serves for a file is left to it; "never" drops the same diagnostics even without it.
import type { ServerSettings } from '../src/shared/settings';
import type { DocState } from './documents';

/** Should diagnostics that Red Hat's server reports too be dropped? */
export function dropsShared(settings: ServerSettings): boolean {
  return (
    settings.schemaDiagnostics === 'never' || (settings.schemaDiagnostics === 'auto' && settings.redhatYamlPresent)
  );
}

/** Do we serve schema completion and hover for this document? */
export function schemaFeaturesFor(settings: ServerSettings, st: DocState, text: string): boolean {
  return !(
    settings.redhatYamlPresent &&
    settings.schemaDiagnostics !== 'always' &&
    st.kind?.overlapWithYamlServer?.(st.path, text)?.schemaFeatures
  );
}

// Where the routing table of a workspace is (setting sessionOps.routingFile): an absolute path as
// it is; a relative one under each workspace folder, in order (the first that exists is the
// table). An empty value means the default. Pure: the host checks which candidate exists.
import * as path from 'node:path';
import { EDITOR_SETTINGS } from '../../core/settings/editor-settings';

export function routingFileCandidates(setting: string, folders: readonly string[]): string[] {
  const value = setting.trim() === '' ? EDITOR_SETTINGS.routingFile.default : setting.trim();
  if (path.isAbsolute(value)) return [path.normalize(value)];
  return folders.map((f) => path.join(f, value));
}

/** The route keys a ticket may take in a table's value: its Kind/* routes, then `default` when it has one. */
export function routeChoices(table: unknown): string[] {
  const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!obj(table)) return [];
  const routes = obj(table.routes) ? Object.keys(table.routes).filter((k) => k.startsWith('Kind/')) : [];
  return Object.hasOwn(table, 'default') ? [...routes, 'default'] : routes;
}

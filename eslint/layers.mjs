// The rooms of the code and what each may import: ARCHITECTURE.md's table "What each room may
// import", as lint zones (import-x/no-restricted-paths: an import of a room not on the importer's
// row is an error). Imports are resolved to files first, so `../cost`, `../cost/index` and
// `../../core/cost/budget` are the same room. npm packages and `schemas/` are not rooms.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The loose files of src/core (the domain model, keys, the clock, ...): a room of their own. */
export const LOOSE = 'src/core/*.ts';
/** The settings model: a leaf that every room below the hosts may read. */
const SETTINGS = 'src/core/settings';

const CORE_ROOMS = [
  'actions',
  'audit',
  'backend',
  'config',
  'cost',
  'daemon',
  'health',
  'metrics',
  'monitor',
  'operations',
  'prompt',
  'report',
  'settings',
  'state',
  'watch',
].map((r) => `src/core/${r}`);
const LANGUAGE_ROOMS = ['routing', 'pages', 'fs'].map((r) => `src/language/${r}`);
const HOSTS = ['src/extension', 'src/cli', 'src/web', 'server'];
const ALL = [...HOSTS, 'src/shared', LOOSE, ...CORE_ROOMS, ...LANGUAGE_ROOMS];

/**
 * Room -> the rooms it may import besides itself. The loose files and the settings model are
 * readable from every room below the hosts unless the row says `leaf`.
 */
export const MAY_IMPORT = {
  // Hosts.
  'src/extension': [LOOSE, ...CORE_ROOMS, ...LANGUAGE_ROOMS, 'src/shared'],
  'src/cli': [LOOSE, ...CORE_ROOMS, ...LANGUAGE_ROOMS, 'src/shared', 'server'],
  'src/web': [LOOSE, 'src/core/health', 'src/core/watch/api/attention.ts'],
  server: [LOOSE, SETTINGS, 'src/core/config', 'src/core/watch', ...LANGUAGE_ROOMS, 'src/shared'],
  'src/shared': [LOOSE, SETTINGS, 'src/language/pages'],
  // Leaves.
  [SETTINGS]: [],
  'src/language/fs': [],
  // The loose files: nothing of the rooms (the clock's one exception is below).
  [LOOSE]: [SETTINGS],
  // The language features.
  'src/language/pages': [LOOSE, SETTINGS],
  'src/language/routing': [LOOSE, SETTINGS],
  // Session operations, from the bottom up.
  'src/core/backend': [LOOSE, SETTINGS],
  'src/core/state': [LOOSE, SETTINGS],
  'src/core/report': [LOOSE, SETTINGS],
  'src/core/config': [LOOSE, SETTINGS, 'src/core/backend'],
  // The client is a leaf over the backend's SSE parser; the attached fleet, its rows and its actor sit on the monitor and the operator.
  'src/core/daemon': [
    LOOSE,
    SETTINGS,
    'src/core/actions',
    'src/core/backend',
    'src/core/config',
    'src/core/health',
    'src/core/monitor',
    'src/core/operations',
  ],
  'src/core/prompt': [LOOSE, SETTINGS, 'src/language/routing'],
  'src/core/cost': [LOOSE, SETTINGS, 'src/core/backend'],
  'src/core/health': [LOOSE, SETTINGS, 'src/core/backend', 'src/core/report', 'src/core/cost'],
  'src/core/monitor': [LOOSE, SETTINGS, 'src/core/backend', 'src/core/config', 'src/core/cost', 'src/core/health'],
  'src/core/actions': [
    LOOSE,
    SETTINGS,
    'src/core/backend',
    'src/core/health',
    'src/core/prompt',
    'src/core/state',
    'src/language/routing',
  ],
  'src/core/operations': [
    LOOSE,
    SETTINGS,
    'src/core/actions',
    'src/core/backend',
    'src/core/health',
    'src/core/monitor',
    'src/core/state',
  ],
  'src/core/metrics': [LOOSE, SETTINGS, 'src/core/backend', 'src/core/cost', 'src/core/monitor'],
  'src/core/audit': [LOOSE, SETTINGS, 'src/core/operations', 'src/core/monitor'],
  'src/core/watch': [
    LOOSE,
    SETTINGS,
    'src/core/actions',
    'src/core/audit',
    'src/core/backend',
    'src/core/config',
    'src/core/health',
    'src/core/metrics',
    'src/core/monitor',
    'src/core/operations',
    'src/core/state',
    'src/language/fs',
    'src/language/routing',
  ],
};

/** The files of the backend that only the backend and these loose files may import. */
const LOOSE_IN_BACKEND = ['model', 'failure-category', 'clock'];

const glob = (room) => path.join(ROOT, room === LOOSE ? room : `${room}/**`);

function zone(target, from, message, except) {
  return { target: path.join(ROOT, target), from: from.map(glob), message, ...(except ? { except } : {}) };
}

/** The import-x/no-restricted-paths zones of MAY_IMPORT. */
export function layerZones() {
  const zones = [];
  for (const [room, allowed] of Object.entries(MAY_IMPORT)) {
    const forbidden = ALL.filter((r) => r !== room && !allowed.includes(r));
    // A single file allowed of a room otherwise forbidden (its glob, as the zone's `from` are globs).
    const files = allowed.filter((r) => r.endsWith('.ts') && r !== LOOSE);
    const except = files.map((f) => path.join(ROOT, path.dirname(f), `@(${path.basename(f, '.ts')}).ts`));
    const message = `${room} may import only ${allowed.length ? allowed.join(', ') : 'itself'} (ARCHITECTURE.md, "What each room may import").`;
    if (room === LOOSE) {
      // The clock rejects a cancelled wait with the backend's `aborted` error (src/core/backend/errors.ts).
      zones.push(zone('src/core/!(clock).ts', forbidden, message));
      zones.push(
        zone('src/core/clock.ts', forbidden, `${message} The clock's one exception: src/core/backend/errors.ts.`, [
          path.join(ROOT, 'src/core/backend/@(errors).ts'),
        ]),
      );
    } else zones.push(zone(`${room}/**`, forbidden, message, except.length ? except : undefined));
  }
  // src/core/backend reads of the loose files only the domain model, the failure categories and the clock.
  zones.push({
    target: path.join(ROOT, 'src/core/backend/**'),
    from: [glob(LOOSE)],
    except: [path.join(ROOT, `src/core/@(${LOOSE_IN_BACKEND.join('|')}).ts`)],
    message: `src/core/backend reads of the loose files of src/core only ${LOOSE_IN_BACKEND.map((f) => `${f}.ts`).join(', ')}.`,
  });
  return zones;
}

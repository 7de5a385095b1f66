// Which files are routing tables: `routing.yaml`, `routing.yml` and `*.routing.yaml` by default,
// files matching extra globs (a setting), and any YAML file that points at the routing schema with
// a top-level `$schema` (or a `# yaml-language-server: $schema=` modeline). Pure.
import { SCHEMA_FILE_NAME, SCHEMA_ID } from './schema';

export const DEFAULT_ROUTING_GLOBS: readonly string[] = ['**/routing.yaml', '**/routing.yml', '**/*.routing.yaml'];

const cache = new Map<string, RegExp>();

/** A glob (`*`, `**`, `?`, `{a,b}`, `[...]`) as a regular expression over '/'-separated paths. */
export function globToRegExp(glob: string): RegExp {
  const hit = cache.get(glob);
  if (hit) return hit;
  let re = '';
  let i = 0;
  let inGroup = 0;
  while (i < glob.length) {
    const c = glob[i];
    if (c === '*') {
      if (glob[i + 1] === '*') {
        const slash = glob[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 3 : 2;
        continue;
      }
      re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      re += '(?:';
      inGroup++;
    } else if (c === '}' && inGroup > 0) {
      re += ')';
      inGroup--;
    } else if (c === ',' && inGroup > 0) re += '|';
    else if (c === '[') {
      const close = glob.indexOf(']', i + 1);
      if (close < 0) re += '\\[';
      else {
        re += `[${glob
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = close;
      }
    } else re += c.replace(/[.+^$()|\\]/g, '\\$&');
    i++;
  }
  const rx = new RegExp(`^${re}$`);
  cache.set(glob, rx);
  return rx;
}

function norm(p: string): string {
  return p.replace(/\\/g, '/');
}

/**
 * Does `filePath` match `glob`? A glob without '/' matches the file name; otherwise it matches the
 * path relative to one of `roots`, or any trailing part of the path.
 */
export function matchesGlob(filePath: string, glob: string, roots: readonly string[] = []): boolean {
  const path = norm(filePath);
  const g = norm(glob.trim());
  if (!g) return false;
  const rx = globToRegExp(g.startsWith('./') ? g.slice(2) : g);
  if (!g.includes('/')) return rx.test(path.slice(path.lastIndexOf('/') + 1));
  if (rx.test(path)) return true;
  for (const r of roots) {
    const root = norm(r).replace(/\/+$/, '') + '/';
    if (path.startsWith(root) && rx.test(path.slice(root.length))) return true;
  }
  // any trailing part
  let i = path.indexOf('/');
  while (i >= 0) {
    if (rx.test(path.slice(i + 1))) return true;
    i = path.indexOf('/', i + 1);
  }
  return false;
}

export function isRoutingFileName(
  filePath: string,
  extraGlobs: readonly string[] = [],
  roots: readonly string[] = [],
): boolean {
  const base = norm(filePath).slice(norm(filePath).lastIndexOf('/') + 1);
  if (
    base === 'routing.yaml' ||
    base === 'routing.yml' ||
    (base.endsWith('.routing.yaml') && base.length > '.routing.yaml'.length)
  )
    return true;
  return extraGlobs.some((g) => matchesGlob(filePath, g, roots));
}

const SCHEMA_KEY_RE = /^(?:"\$schema"|'\$schema'|\$schema)[ \t]*:[ \t]*(["']?)([^"'#\s]+)\1/m;
const MODELINE_RE = /^#\s*yaml-language-server\s*:\s*\$schema=(\S+)/m;

/** True when the text points at the routing schema by `$schema` or a yaml-language-server modeline. */
export function pointsAtRoutingSchema(text: string): boolean {
  const head = text.length > 65536 ? text.slice(0, 65536) : text;
  if (!head.includes('$schema')) return false;
  const m = SCHEMA_KEY_RE.exec(head) ?? MODELINE_RE.exec(head);
  const ref = m ? (m.length > 2 ? m[2] : m[1]) : undefined;
  if (!ref) return false;
  if (ref === SCHEMA_ID) return true;
  const clean = ref.split(/[?#]/)[0];
  return clean === SCHEMA_FILE_NAME || clean.endsWith(`/${SCHEMA_FILE_NAME}`) || clean.endsWith(`:${SCHEMA_FILE_NAME}`);
}

/** Is this file a routing table? (name, extra globs, or a `$schema` pointer when the text is known) */
export function claimsRouting(
  filePath: string,
  text: string | undefined,
  extraGlobs: readonly string[] = [],
  roots: readonly string[] = [],
): boolean {
  if (isRoutingFileName(filePath, extraGlobs, roots)) return true;
  if (text === undefined) return false;
  return pointsAtRoutingSchema(text);
}

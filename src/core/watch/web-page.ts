// The daemon's web page (issue 32): GET / (the page's shell) and GET /assets/app.js, app.css and
// icon.svg (the bundle of src/web, built into dist/web beside dist/cli.js). Static: nothing in them
// is fleet data, so they are served without a token; the page asks for one and reads /api/* with it.
// Every answer carries a strict Content-Security-Policy (scripts, styles and connections from this
// origin only: no inline script or style, no frames, no forms posted anywhere) and no cookie.
// The files are read once, at start; a missing bundle answers 503 with what to do.
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers of every page answer (with content-type and content-length). */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': PAGE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/** The page's shell: the bundle's script and stylesheet, nothing inline. */
export const PAGE_SHELL = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Session Ops</title>
<link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/app.css">
<script src="/assets/app.js" defer></script>
</head>
<body>
<noscript>Session Ops needs JavaScript to show the fleet.</noscript>
<div id="app"></div>
</body>
</html>
`;

const ASSETS: Readonly<Record<string, string>> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
};

/** A file of the page; the HTTP server adds content-length and sends the body (none for HEAD). */
export interface PageAnswer {
  status: number;
  contentType: string;
  body: string | Buffer;
  /** The CSP and the other page headers. */
  headers: Record<string, string>;
}

/**
 * The page over the bundle in `dir` (dist/web), read now: the answer for GET "/" or "/assets/NAME"
 * (404 for a name that is not one of the bundle's files, 503 for one not built); null for any
 * other path (not the page's).
 */
export function webPage(dir: string): (path: string) => PageAnswer | null {
  const files = new Map<string, Buffer>();
  for (const name of Object.keys(ASSETS)) {
    try {
      files.set(name, readFileSync(path.join(dir, name)));
    } catch {
      /* not built: answered 503 below */
    }
  }
  const answer = (status: number, contentType: string, body: string | Buffer): PageAnswer => ({
    status,
    contentType,
    body,
    headers: { ...PAGE_HEADERS },
  });
  return (p) => {
    if (p === '/') {
      if (!files.has('app.js'))
        return answer(
          503,
          'text/plain; charset=utf-8',
          'the web page is not built (no app.js beside the CLI): run "npm run build"\n',
        );
      return answer(200, 'text/html; charset=utf-8', PAGE_SHELL);
    }
    if (!p.startsWith('/assets/')) return null;
    const name = p.slice('/assets/'.length);
    const type = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!type) return answer(404, 'text/plain; charset=utf-8', 'not found\n');
    const body = files.get(name);
    if (!body) return answer(503, 'text/plain; charset=utf-8', `the web page is not built (no ${name})\n`);
    return answer(200, type, body);
  };
}

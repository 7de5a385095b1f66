// The daemon's API tokens (issue 32 item 2): a tokens file (auth.tokensFile) lists each token by
// name and scope (read < act), stored as the SHA-256 of the token, never the token itself. A token
// is 32 random bytes (256 bits), so a fast hash is enough: nobody can guess a preimage. A presented
// token is hashed and compared with every stored hash in constant time (no early exit), so the
// answer's timing says nothing about which bytes matched. The file:
//   {"version": 1, "tokens": [{"name": "alice", "scope": "act", "sha256": "<64 hex>", "createdAt": "ISO"}]}
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type Scope = 'read' | 'act';

export const SCOPES: readonly Scope[] = ['read', 'act'];

export interface StoredToken {
  name: string;
  scope: Scope;
  /** Lower-case hex SHA-256 of the token's UTF-8 bytes. */
  sha256: string;
  createdAt: string | null;
}

export interface Principal {
  name: string;
  scope: Scope;
}

/** The largest tokens file read. */
export const MAX_TOKENS_FILE_BYTES = 1024 * 1024;
/** The longest token accepted in an Authorization header (ours are 47 characters). */
export const MAX_TOKEN_CHARS = 256;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;
const HEX64 = /^[0-9a-f]{64}$/;
/** Every token starts so (a scanner for leaked secrets can find them). */
export const TOKEN_PREFIX = 'sot_';

export function isScope(value: unknown): value is Scope {
  return value === 'read' || value === 'act';
}

/** Whether `scope` allows what `needed` asks (act includes read). */
export function allows(scope: Scope, needed: Scope): boolean {
  return scope === 'act' || needed === 'read';
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new random token: "sot_" and 43 base64url characters (32 bytes). */
export function newToken(random: (n: number) => Buffer = randomBytes): string {
  return `${TOKEN_PREFIX}${random(32).toString('base64url')}`;
}

/** Parses a tokens file's text; throws an Error naming what is wrong (never a token). */
export function parseTokensFile(text: string): StoredToken[] {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`not JSON (${(err as Error).message})`, { cause: err });
  }
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new Error('expected {"version": 1, "tokens": [...]}');
  const doc = json as { version?: unknown; tokens?: unknown };
  if (doc.version !== 1) throw new Error('"version" must be 1');
  if (!Array.isArray(doc.tokens)) throw new Error('"tokens" must be a list');
  const names = new Set<string>();
  return doc.tokens.map((t: unknown, i): StoredToken => {
    const where = `tokens[${i}]`;
    if (!t || typeof t !== 'object') throw new Error(`${where} must be an object`);
    const e = t as Record<string, unknown>;
    for (const key of Object.keys(e))
      if (!['name', 'scope', 'sha256', 'createdAt'].includes(key))
        throw new Error(`${where}: unknown key "${key}" (a token is stored only as its sha256)`);
    if (typeof e.name !== 'string' || !NAME.test(e.name))
      throw new Error(`${where}.name must be 1-64 letters, digits, ".", "_", "@" or "-"`);
    if (names.has(e.name)) throw new Error(`${where}: the name "${e.name}" is used twice`);
    names.add(e.name);
    if (!isScope(e.scope)) throw new Error(`${where}.scope must be "read" or "act"`);
    if (typeof e.sha256 !== 'string' || !HEX64.test(e.sha256))
      throw new Error(`${where}.sha256 must be 64 lower-case hex digits`);
    if (e.createdAt !== undefined && e.createdAt !== null && typeof e.createdAt !== 'string')
      throw new Error(`${where}.createdAt must be a string`);
    return { name: e.name, scope: e.scope, sha256: e.sha256, createdAt: (e.createdAt as string | undefined) ?? null };
  });
}

export function formatTokensFile(tokens: readonly StoredToken[]): string {
  return `${JSON.stringify({ version: 1, tokens }, null, 2)}\n`;
}

/** Checks a name for `token add`; the error text, or null. */
export function tokenNameProblem(name: string): string | null {
  return NAME.test(name)
    ? null
    : 'a token name is 1-64 letters, digits, ".", "_", "@" or "-", starting with a letter or digit';
}

/** The tokens in force: who a presented token is, in constant time per stored token. */
export class TokenBook {
  private readonly hashes: Array<{ hash: Buffer; principal: Principal }>;

  constructor(tokens: readonly StoredToken[]) {
    this.hashes = tokens.map((t) => ({
      hash: Buffer.from(t.sha256, 'hex'),
      principal: { name: t.name, scope: t.scope },
    }));
  }

  get size(): number {
    return this.hashes.length;
  }

  /** The token's holder, or null. Every stored hash is compared (no early exit). */
  authenticate(token: string): Principal | null {
    if (token.length === 0 || token.length > MAX_TOKEN_CHARS) return null;
    const presented = createHash('sha256').update(token, 'utf8').digest();
    let found: Principal | null = null;
    for (const entry of this.hashes) if (timingSafeEqual(presented, entry.hash) && !found) found = entry.principal;
    return found;
  }
}

/** The token of an `Authorization: Bearer <token>` header; null when absent, undefined when malformed. */
export function bearerToken(header: string | undefined): string | null | undefined {
  if (header === undefined || header === '') return null;
  const m = /^Bearer[ ]+([\x21-\x7e]+)[ ]*$/i.exec(header);
  return m ? m[1] : undefined;
}

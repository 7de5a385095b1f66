// A small evaluator of VS Code `when` clauses (the subset package.json menus use: identifiers,
// 'strings', /regexes/flags, true/false, ==, !=, =~, !, &&, ||, parentheses), so unit tests can
// check on which tree items a menu entry shows. Unknown context keys read as undefined (falsy),
// as in VS Code.
type Token = { t: 'id' | 'str' | 're' | 'op' | 'lp' | 'rp'; v: string; flags?: string };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (['==', '!=', '=~', '&&', '||'].includes(two)) {
      out.push({ t: 'op', v: two });
      i += 2;
      continue;
    }
    if (c === '!') {
      out.push({ t: 'op', v: '!' });
      i++;
      continue;
    }
    if (c === '(' || c === ')') {
      out.push({ t: c === '(' ? 'lp' : 'rp', v: c });
      i++;
      continue;
    }
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated string in: ${src}`);
      out.push({ t: 'str', v: src.slice(i + 1, end) });
      i = end + 1;
      continue;
    }
    if (c === '/' && out.length > 0 && out[out.length - 1].v === '=~') {
      let j = i + 1;
      let inClass = false;
      for (; j < src.length; j++) {
        if (src[j] === '\\') {
          j++;
          continue;
        }
        if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
        else if (src[j] === '/' && !inClass) break;
      }
      if (j >= src.length) throw new Error(`unterminated regex in: ${src}`);
      const body = src.slice(i + 1, j);
      let k = j + 1;
      while (k < src.length && /[a-z]/.test(src[k])) k++;
      out.push({ t: 're', v: body, flags: src.slice(j + 1, k) });
      i = k;
      continue;
    }
    const m = /^[A-Za-z0-9_.:-]+/.exec(src.slice(i));
    if (!m) throw new Error(`unexpected "${c}" in: ${src}`);
    out.push({ t: 'id', v: m[0] });
    i += m[0].length;
  }
  return out;
}

export type Context = Record<string, string | boolean | number | undefined>;

/** Evaluates a when clause against a context. Throws on syntax it does not know. */
export function evaluateWhen(clause: string, context: Context): boolean {
  const tokens = tokenize(clause);
  let pos = 0;
  const peek = () => tokens[pos];
  const value = (tok: Token): unknown => {
    if (tok.t === 'str') return tok.v;
    if (tok.v === 'true') return true;
    if (tok.v === 'false') return false;
    return context[tok.v];
  };
  const primary = (): boolean => {
    const tok = tokens[pos++];
    if (!tok) throw new Error(`unexpected end of: ${clause}`);
    if (tok.t === 'op' && tok.v === '!') return !primary();
    if (tok.t === 'lp') {
      const v = or();
      if (tokens[pos++]?.t !== 'rp') throw new Error(`missing ) in: ${clause}`);
      return v;
    }
    if (tok.t !== 'id' && tok.t !== 'str') throw new Error(`unexpected ${tok.v} in: ${clause}`);
    const next = peek();
    if (next?.t === 'op' && (next.v === '==' || next.v === '!=')) {
      pos++;
      const rhs = tokens[pos++];
      const rv = rhs.t === 'id' && !(rhs.v in context) && rhs.v !== 'true' && rhs.v !== 'false' ? rhs.v : value(rhs);
      const eq = String(value(tok)) === String(rv);
      return next.v === '==' ? eq : !eq;
    }
    if (next?.t === 'op' && next.v === '=~') {
      pos++;
      const re = tokens[pos++];
      if (re.t !== 're') throw new Error(`=~ needs a regex in: ${clause}`);
      const lhs = value(tok);
      return typeof lhs === 'string' && new RegExp(re.v, re.flags).test(lhs);
    }
    return Boolean(value(tok));
  };
  const and = (): boolean => {
    let v = primary();
    while (peek()?.v === '&&') {
      pos++;
      const r = primary();
      v = v && r;
    }
    return v;
  };
  const or = (): boolean => {
    let v = and();
    while (peek()?.v === '||') {
      pos++;
      const r = and();
      v = v || r;
    }
    return v;
  };
  const result = or();
  if (pos !== tokens.length) throw new Error(`trailing tokens in: ${clause}`);
  return result;
}

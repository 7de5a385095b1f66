// UTF-8 text read from a file a person gave (a prompt file, a facts file): strictly decoded, so a
// Latin-1 or binary file is refused with the offset of its first invalid byte instead of being
// sent with U+FFFD in it; a leading byte order mark is dropped. Plus the UTF-8 size of a text,
// counted without encoding it. Pure.

export type Utf8Result = { ok: true; text: string } | { ok: false; offset: number };

const strict = new TextDecoder('utf-8', { fatal: true });

/** The text of `bytes` without a leading BOM, or the offset of the first byte of the first invalid sequence. */
export function decodeUtf8(bytes: Uint8Array): Utf8Result {
  const offset = invalidUtf8Offset(bytes);
  if (offset !== null) return { ok: false, offset };
  // The decoder drops a leading BOM (ignoreBOM is false by default).
  return { ok: true, text: strict.decode(bytes) };
}

/** A text that is already decoded, without a leading BOM. */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Where the first ill-formed sequence starts (the WHATWG / Unicode well-formed table: no overlong
 * forms, no surrogates, nothing above U+10FFFF, no truncated sequence), or null when all is well.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number | null {
  let i = 0;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lo = 0xa0;
      else if (b === 0xed) hi = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lo = 0x90;
      else if (b === 0xf4) hi = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      const c = bytes[i + k];
      if (c === undefined) return i;
      if (k === 1 ? c < lo || c > hi : c < 0x80 || c > 0xbf) return i;
    }
    i += need + 1;
  }
  return null;
}

/** The number of bytes `text` takes in UTF-8 (a lone surrogate counts as U+FFFD, 3 bytes). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** A byte count as people read it: "812 bytes", "300.0 KiB", "20.0 MiB". */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

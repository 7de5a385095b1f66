// Helpers that keep interpolated facts from changing a prompt's structure: every value from a
// backend, a ticket or the file system is folded onto one line before it goes into a prompt.
import type { EpochMs } from '../model';

/** One line: control characters and line breaks become spaces. */
export function inline(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** A file path as shown in a prompt: backticked, or JSON-quoted when it holds odd characters. */
export function filePath(path: string): string {
  return /^[^\u0000-\u001f\u007f`]+$/.test(path) ? `\`${path}\`` : JSON.stringify(path);
}

export function isoTime(at: EpochMs | string): string {
  if (typeof at === 'string') return inline(at);
  return new Date(at).toISOString();
}

export function numbered(items: string[], indent = ''): string {
  return items.map((item, i) => `${indent}${i + 1}. ${item}`).join('\n');
}

export function bullets(items: string[], indent = ''): string {
  return items.map((item) => `${indent}- ${item}`).join('\n');
}

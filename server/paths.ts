// Paths and URIs as the server compares them.
import { fileURLToPath } from 'node:url';

/** A file URI's path (other URIs are returned as they are). */
export function uriToPath(uri: string): string {
  if (uri.startsWith('file:')) {
    try {
      return fileURLToPath(uri);
    } catch {
      return decodeURIComponent(uri.replace(/^file:\/\//, ''));
    }
  }
  return uri;
}

/** Comparable form of a path (Windows paths compare case-insensitively). */
export function pathKey(p: string): string {
  return process.platform === 'win32' ? p.toLowerCase() : p;
}

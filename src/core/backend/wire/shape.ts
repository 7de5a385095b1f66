// Small readers for untrusted JSON: each returns the value when it has the expected type and
// otherwise records a problem, so an adapter can reject a body with one readable reason.

export type Json = unknown;
export type Obj = Record<string, unknown>;

export class ShapeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ShapeError';
  }
}

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function obj(v: unknown, where: string): Obj {
  if (!isObj(v)) throw new ShapeError(`${where} is not an object`);
  return v;
}

export function arr(v: unknown, where: string): unknown[] {
  if (!Array.isArray(v)) throw new ShapeError(`${where} is not an array`);
  return v;
}

export function str(v: unknown, where: string): string {
  if (typeof v !== 'string') throw new ShapeError(`${where} is not a string`);
  return v;
}

/** Optional string: absent/null -> null; present with another type -> error. */
export function optStr(v: unknown, where: string): string | null {
  if (v === undefined || v === null) return null;
  return str(v, where);
}

export function num(v: unknown, where: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ShapeError(`${where} is not a number`);
  return v;
}

export function optNum(v: unknown, where: string): number | null {
  if (v === undefined || v === null) return null;
  return num(v, where);
}

/** Lenient: a finite number or null, never an error (for fields only used as evidence). */
export function looseNum(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

export function looseStr(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

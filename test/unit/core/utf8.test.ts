import assert from 'node:assert/strict';
import { decodeUtf8, invalidUtf8Offset, sizeText, utf8Length, withoutBom } from '../../../src/core/utf8';

const bytes = (...xs: number[]) => Uint8Array.from(xs);

describe('strict UTF-8', () => {
  it('decodes well-formed text and drops a leading BOM only', () => {
    const text = 'wake up: café, 日本, 🚀 "quoted"\n';
    assert.deepEqual(decodeUtf8(Buffer.from(text, 'utf8')), { ok: true, text });
    assert.deepEqual(decodeUtf8(Buffer.from(`\ufeff${text}`, 'utf8')), { ok: true, text });
    assert.deepEqual(decodeUtf8(Buffer.from(`a\ufeffb`, 'utf8')), { ok: true, text: 'a\ufeffb' }, 'a BOM inside stays');
    assert.equal(withoutBom('\ufeffhello'), 'hello');
    assert.equal(withoutBom('hello\ufeff'), 'hello\ufeff');
  });

  it('refuses a Latin-1 file with the offset of its first invalid byte', () => {
    assert.deepEqual(decodeUtf8(Buffer.from('caf\xe9 ok', 'latin1')), { ok: false, offset: 3 });
    assert.deepEqual(decodeUtf8(Buffer.from('ok\nna\xefve', 'latin1')), { ok: false, offset: 5 });
  });

  const invalid: Array<[string, Uint8Array, number]> = [
    ['a lone continuation byte', bytes(0x61, 0x80), 1],
    ['an overlong two-byte form', bytes(0xc0, 0xaf), 0],
    ['an overlong three-byte form', bytes(0x61, 0xe0, 0x80, 0xaf), 1],
    ['a surrogate', bytes(0xed, 0xa0, 0x80), 0],
    ['above U+10FFFF', bytes(0xf4, 0x90, 0x80, 0x80), 0],
    ['a byte that never occurs', bytes(0x61, 0x62, 0xff), 2],
    ['a sequence cut short by the end', bytes(0x61, 0xe6, 0x97), 1],
    ['a sequence cut short by ASCII', bytes(0xf0, 0x9f, 0x41, 0x41), 0],
  ];
  for (const [name, b, offset] of invalid)
    it(`refuses ${name} at its offset`, () => {
      assert.equal(invalidUtf8Offset(b), offset);
      assert.throws(() => new TextDecoder('utf-8', { fatal: true }).decode(b), 'the platform decoder agrees');
    });

  it('counts the UTF-8 size of a text without encoding it', () => {
    for (const t of ['', 'ascii', 'café', '日本語', '🚀x', 'a\ud800b', 'end\udc00'])
      assert.equal(utf8Length(t), Buffer.byteLength(t, 'utf8'), JSON.stringify(t));
    assert.equal(sizeText(812), '812 bytes');
    assert.equal(sizeText(300 * 1024), '300.0 KiB');
    assert.equal(sizeText(20 * 1024 * 1024), '20.0 MiB');
  });
});

/**
 * src/printable.ts: what an agent wrote, made safe to print. Each sequence a terminal would obey
 * comes out as visible text that says what was there; ordinary text (UTF-8, emoji, CJK, tabs,
 * backslashes) comes out as it went in.
 */
import { describe, expect, it } from 'vitest';
import { printable, printableJson, printableLines } from '../src/printable.js';

const ESC = '\u001b';
const BEL = '\u0007';

/** Nothing a terminal would act on: no C0 but tab and newline, no DEL, no C1, no bidi control. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

describe('printable', () => {
  it.each([
    ['a CSI that erases the line above', `score 0${ESC}[1A${ESC}[2Kc1 score 20/20`, 'score 0\\u001b[1A\\u001b[2Kc1 score 20/20'],
    ['an OSC 0 window title ended by BEL', `${ESC}]0;pwned${BEL}done`, '\\u001b]0;pwned\\u0007done'],
    ['an OSC 2 window title ended by ST', `${ESC}]2;pwned${ESC}\\done`, '\\u001b]2;pwned\\u001b\\done'],
    ['an OSC 52 clipboard write', `${ESC}]52;c;Y3VybCBldmlsLnNoIHwgc2g=${BEL}`, '\\u001b]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\u0007'],
    ['a DCS string', `${ESC}Pq#0${ESC}\\`, '\\u001bPq#0\\u001b\\'],
    ['the 8-bit CSI (C1 U+009B)', '\u009b2Kgone', '\\u009b2Kgone'],
    ['the 8-bit OSC and ST (C1)', '\u009d0;title\u009c', '\\u009d0;title\\u009c'],
    ['a right-to-left override (Trojan Source)', 'access = "user\u202e \u2066// admin\u2069\u2066"', 'access = "user\\u202e \\u2066// admin\\u2069\\u2066"'],
    ['a carriage return that writes over the line', 'c1 TAMPERED\rc1 fine     ', 'c1 TAMPERED\\rc1 fine     '],
    ['a newline in a file name (a forged line)', 'a.txt\nc2 score 20/20', 'a.txt\\nc2 score 20/20'],
    ['backspace, form feed, DEL and NUL', 'a\b\f\u007f\u0000b', 'a\\b\\f\\u007f\\u0000b'],
    ['a colour, removed (it could conceal text: ESC [ 8 m)', `${ESC}[8mhidden${ESC}[0m and ${ESC}[1;31mred${ESC}[m`, 'hidden and red'],
    ['an ESC right before a colour: escaped, the colour removed', `${ESC}${ESC}[mc`, '\\u001bc'],
  ])('escapes %s', (_what, text, expected) => {
    const out = printable(text);
    expect(out).toBe(expected);
    expect(out).not.toMatch(UNSAFE);
    expect(out).not.toContain('\n');
  });

  it.each([
    ['plain ASCII', 'c1 check unit: pass (10/10, 1.2s)'],
    ['accented UTF-8', 'résumé naïve — “quoted” · ±½ €'],
    ['emoji, with a joiner and a variation selector', '✅ done 👩‍💻 🏳️‍🌈 ❤️'],
    ['CJK and Hangul', '测试通过 テスト 테스트'],
    ['Arabic and Hebrew, with a right-to-left mark', 'مرحبا שלום \u200f'],
    ['a tab', 'name\tvalue'],
    ['backslashes and a literal escape an agent typed', 'C:\\path\\u001b and \\x1b[2K'],
  ])('leaves %s as it is', (_what, text) => {
    expect(printable(text)).toBe(text);
  });

  it('is idempotent: text made printable stays the same when made printable again', () => {
    const once = printable(`${ESC}]0;t${BEL}\u009b\u202e\nx`);
    expect(printable(once)).toBe(once);
    expect(printableLines(once)).toBe(once);
  });
});

describe('printableLines', () => {
  it('keeps newlines, reads CR LF and a lone CR as newlines, and escapes the rest', () => {
    expect(printableLines(`line 1\r\nline 2\rover\n${ESC}[1A${ESC}[2K\u009b\tend\n`)).toBe('line 1\nline 2\nover\n\\u001b[1A\\u001b[2K\\u009b\tend\n');
  });

  it('leaves a block of ordinary lines as it is', () => {
    const block = '✔ adds (0.5ms)\n  测试 ok\n\tindented\n';
    expect(printableLines(block)).toBe(block);
  });
});

describe('printableJson', () => {
  it('escapes what JSON.stringify leaves raw (C1, DEL, bidi), and parses back to the same value', () => {
    const value = { message: `${ESC}]0;t${BEL} \u009b2K \u007f \u202e \u2067 ✅ 测试`, path: 'a\nb' };
    const json = JSON.stringify(value);
    expect(json).toMatch(/[\u009b\u007f\u202e\u2067]/);
    const safe = printableJson(json);
    expect(safe).not.toMatch(UNSAFE);
    expect(safe).toContain('\\u009b2K');
    expect(safe).toContain('✅ 测试');
    expect(JSON.parse(safe)).toEqual(value);
  });
});

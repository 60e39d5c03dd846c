/** Where a check's whole output goes (src/checks/check-log-name.ts): one file per check, whatever the names. */
import { describe, expect, it } from 'vitest';
import { checkLogName } from '../../src/checks/check-log-name.js';

describe('checkLogName', () => {
  it('keeps a name that is safe in a file name as it is', () => {
    expect(checkLogName('unit')).toBe('unit.log');
    expect(checkLogName('own-port')).toBe('own-port.log');
    expect(checkLogName('a_b.v2')).toBe('a_b.v2.log');
  });

  it('gives names that differ a file each, even when their safe parts are the same ("a/b", "a b" and "a_b" once shared a_b.log)', () => {
    const names = ['a/b', 'a b', 'a_b', 'a//b', 'ü/b'];
    const files = names.map(checkLogName);
    expect(new Set(files).size).toBe(names.length);
    expect(checkLogName('a/b')).toMatch(/^a_b-[0-9a-f]{8}\.log$/);
    expect(files.every((file) => /^[\w.-]+\.log$/.test(file))).toBe(true);
  });
});

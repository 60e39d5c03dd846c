/** What counts as a full disk (src/process/disk-full.ts): the run stops on it, and nothing else. */
import { describe, expect, it } from 'vitest';
import { isDiskFull } from '../../src/process/disk-full.js';

describe('isDiskFull', () => {
  it('takes ENOSPC and EDQUOT by code or in a message: a write of bestof, a check whose log could not be made, git', () => {
    expect(isDiskFull(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))).toBe(true);
    expect(isDiskFull({ code: 'EDQUOT' })).toBe(true);
    expect(isDiskFull({ message: "cannot open log file /r/checks/t.log: ENOSPC: no space left on device, open '/r/checks/t.log'" })).toBe(true);
    expect(isDiskFull(new Error('git add failed (exit 128): error: unable to write loose object file: No space left on device'))).toBe(true);
    expect(isDiskFull(new Error('write failed: Disk quota exceeded'))).toBe(true);
  });

  it('takes nothing else: a missing file, a permission, a bug, no error at all', () => {
    expect(isDiskFull(Object.assign(new Error('ENOENT: no such file or directory'), { code: 'ENOENT' }))).toBe(false);
    expect(isDiskFull(new Error('EACCES: permission denied'))).toBe(false);
    expect(isDiskFull(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isDiskFull(undefined)).toBe(false);
    expect(isDiskFull('a string')).toBe(false);
  });
});

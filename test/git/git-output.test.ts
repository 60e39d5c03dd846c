import { describe, expect, it } from 'vitest';
import { gitMessage } from '../../src/git/running/git-output.js';

describe('gitMessage', () => {
  it('keeps each error of git a message of its own, and a wrapped paragraph one sentence', () => {
    // What `git merge` printed when the user's gpg could not sign bestof's merge commit.
    expect(gitMessage('error: gpg failed to sign the data\nfatal: failed to write commit object\n')).toBe(
      'gpg failed to sign the data; failed to write commit object',
    );
    // git's index.lock message: one fatal line, then its explanation over several lines.
    expect(
      gitMessage(
        "fatal: Unable to create '/r/.git/index.lock': File exists.\n\nAnother git process seems to be running in this repository, e.g.\nan editor opened by 'git commit'.\n",
      ),
    ).toBe(
      "Unable to create '/r/.git/index.lock': File exists. Another git process seems to be running in this repository, e.g. an editor opened by 'git commit'.",
    );
  });

  it('drops hints, keeps the files git names, and stops at 400 characters', () => {
    expect(gitMessage('error: Your local changes would be overwritten by merge:\n\ta.txt\n\tb.txt\nhint: commit them first\n')).toBe(
      'Your local changes would be overwritten by merge: a.txt b.txt',
    );
    const long = gitMessage(`fatal: ${'x'.repeat(500)}`);
    expect(long).toHaveLength(400);
    expect(long.endsWith('…')).toBe(true);
  });
});

import { describe, expect, it } from 'vitest';
import { besideKeptRef } from '../../src/engine/workspace/candidate-refs.js';
import { revertedRef } from '../../src/engine/merge/merge-policy.js';
import { leftoverRef } from '../../src/engine/run/stages/finish.js';
import { movedTipRef } from '../../src/engine/run/stages/selection.js';

describe("the refs beside a candidate's kept ref", () => {
  it('are its siblings under refs/bestof/<run>/<id>/', () => {
    const kept = 'refs/bestof/20261202-0000-abcd/c2/kept';
    expect([revertedRef(kept), leftoverRef(kept), movedTipRef(kept, 'ref'), movedTipRef(kept, 'branch'), besideKeptRef(kept, 'agent-branches/fix')]).toEqual([
      'refs/bestof/20261202-0000-abcd/c2/reverted',
      'refs/bestof/20261202-0000-abcd/c2/leftover',
      'refs/bestof/20261202-0000-abcd/c2/moved-ref',
      'refs/bestof/20261202-0000-abcd/c2/moved-branch',
      'refs/bestof/20261202-0000-abcd/c2/agent-branches/fix',
    ]);
  });

  it('of a run from before the /kept rename (the kept ref was .../<id>) are .../<id>-<name>', () => {
    expect(besideKeptRef('refs/bestof/old/c1', 'leftover')).toBe('refs/bestof/old/c1-leftover');
    expect(movedTipRef('refs/bestof/old/c1', 'branch')).toBe('refs/bestof/old/c1-moved-branch');
  });
});

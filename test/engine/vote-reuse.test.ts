/** What a resumed vote may take from the interrupted one's record (src/engine/vote/reuse.ts). */
import { describe, expect, it } from 'vitest';
import { callKey, reusableCalls } from '../../src/engine/vote/reuse.js';
import type { VoteCall, VoteStart, VoteState } from '../../src/vote/record.js';
import { voterViews } from '../../src/vote/order.js';

const material = (candidate: string, digest: string | null = `d-${candidate}`) => ({
  candidate,
  length: 10,
  cut: false,
  changes: {},
  checks: 'ok',
  ...(digest !== null ? { digest } : {}),
});
const start: VoteStart = {
  seed: 's',
  method: 'borda',
  weight: 0.5,
  voters: ['j1', 'j2'].map((id) => ({ id, kind: 'command' })),
  eligible: ['c1', 'c2', 'c3'],
  views: voterViews('s', ['c1', 'c2', 'c3'], [{ id: 'j1' }, { id: 'j2' }]),
  materials: ['c1', 'c2', 'c3'].map((c) => material(c)),
};
const ranking = (voter: string, extra: Partial<VoteCall> = {}): VoteCall => ({
  voter,
  purpose: 'ranking',
  answers: ['FINAL RANKING: …'],
  ranking: ['c1', 'c2', 'c3'],
  costUsd: 0.1,
  ...extra,
});
const earlier = (calls: VoteCall[], changes: Partial<VoteStart> = {}): VoteState => ({ ...start, ...changes, calls });

describe('reusing the answers of an interrupted vote', () => {
  it('takes the counted answers about the same prompts, and leaves failed or unread ones to be asked again', () => {
    const failed: VoteCall = { voter: 'j2', purpose: 'ranking', answers: ['babble', 'babble'], error: 'ballot unparsable twice: …', costUsd: 0.1 };
    const review: VoteCall = { voter: 'j2', purpose: 'review', answers: ['## A …'], reviews: { c1: 'fine' }, costUsd: 0.1 };
    const pair: VoteCall = { voter: 'j1', purpose: 'pair', first: 'c2', second: 'c1', answers: ['WINNER: A'], verdict: { winner: 'c2' }, costUsd: 0.1 };
    const reuse = reusableCalls(earlier([ranking('j1'), failed, review, pair]), start, true);
    expect('calls' in reuse && [...reuse.calls.keys()].sort()).toEqual(
      [callKey('j1', 'pair', 'c2', 'c1'), callKey('j1', 'ranking'), callKey('j2', 'review')].sort(),
    );
  });

  it('reuses nothing without the sandbox: any agent could have written the record', () => {
    expect(reusableCalls(earlier([ranking('j1')]), start, false)).toEqual({ none: expect.stringContaining('without the sandbox') });
  });

  it('reuses nothing when what a voter was shown changed: another material, another view, another voter', () => {
    const changedMaterial = { ...start, materials: [material('c1', 'other'), material('c2'), material('c3')] };
    expect(reusableCalls(earlier([ranking('j1')]), changedMaterial, true)).toHaveProperty('none');
    const otherSeed = { ...start, views: voterViews('t', ['c1', 'c2', 'c3'], [{ id: 'j1' }, { id: 'j2' }]) };
    expect(reusableCalls(earlier([ranking('j1')]), otherSeed, true)).toHaveProperty('none');
    expect(
      reusableCalls(
        earlier([ranking('j1')], {
          voters: [
            { id: 'j1', kind: 'command' },
            { id: 'j2', kind: 'script' },
          ],
        }),
        start,
        true,
      ),
    ).toHaveProperty('none');
    // A record written before materials had digests cannot show that the text is the same.
    expect(reusableCalls(earlier([ranking('j1')], { materials: ['c1', 'c2', 'c3'].map((c) => material(c, null)) }), start, true)).toHaveProperty('none');
  });
});

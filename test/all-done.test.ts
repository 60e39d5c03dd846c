import { describe, expect, it } from 'vitest';
import { allDone } from '../src/all-done.js';

describe('allDone', () => {
  it('gives every value, in order', async () => {
    expect(await allDone<[number, string]>([Promise.resolve(1), Promise.resolve('two')])).toEqual([1, 'two']);
  });

  it('rejects with the first failure only once every step has settled', async () => {
    const done: string[] = [];
    let finishSlow!: () => void;
    const slow = new Promise<void>((resolve) => {
      finishSlow = () => {
        done.push('slow');
        resolve();
      };
    });
    const failing = Promise.reject(new Error('first'));
    const later = Promise.resolve().then(() => {
      throw new Error('second');
    });
    const all = allDone<[void, never, never]>([slow, failing, later]).catch((error: Error) => {
      done.push(`rejected: ${error.message}`);
    });
    // Promise.all would have rejected by now; allDone waits for the slow step.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toEqual([]);
    finishSlow();
    await all;
    expect(done).toEqual(['slow', 'rejected: first']);
  });
});

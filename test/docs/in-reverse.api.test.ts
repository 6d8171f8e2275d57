import { stopAllSandboxes } from '../helpers/start-sandbox.js';
import { hasCurl, pasteInOrder, RUNNABLE_DOC_FILES } from './guides.js';

afterAll(stopAllSandboxes);

// The guides in any order: the other way round from in-order.api.test.ts.
(hasCurl ? describe : describe.skip)('the guides and the README, pasted in reverse order into one sandbox', () => {
  it(`each runs from top to bottom, shows what it promises and leaves the account as it found it: ${[...RUNNABLE_DOC_FILES].reverse().join(', ')}`, async () => {
    expect(await pasteInOrder([...RUNNABLE_DOC_FILES].reverse())).toEqual([]);
  }, 300_000);
});

import { stopAllSandboxes } from '../helpers/start-sandbox.js';
import { hasCurl, pasteInOrder, RUNNABLE_DOC_FILES } from './guides.js';

afterAll(stopAllSandboxes);

// The README, then the guides as listed; in-reverse.api.test.ts pastes them the other way round,
// so every guide runs both before and after every other one.
(hasCurl ? describe : describe.skip)('the README and the guides, pasted in order into one sandbox', () => {
  it(`each runs from top to bottom, shows what it promises and leaves the account as it found it: ${RUNNABLE_DOC_FILES.join(', ')}`, async () => {
    expect(await pasteInOrder(RUNNABLE_DOC_FILES)).toEqual([]);
  }, 300_000);
});

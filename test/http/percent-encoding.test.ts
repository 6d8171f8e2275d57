import fc from 'fast-check';

import { findPercentEncodingProblem } from '../../src/http/percent-encoding.js';

describe('findPercentEncodingProblem', () => {
  it.each(['/v1/locations', '/v1/locations/%2F%20%25', '/caf%C3%A9', '/%F0%9F%92%A7'])('accepts %j', (text) => {
    expect(findPercentEncodingProblem(text)).toBeNull();
  });

  it.each([
    ['/v1/locations/%/readings', { index: 14, sequence: '%/r', rule: expect.stringContaining('is not a %XX escape') }],
    ['/v1/locations/%E0%A4%A', { index: 20, sequence: '%A', rule: expect.stringContaining('is not a %XX escape') }],
    ['%G1', { index: 0, sequence: '%G1', rule: expect.stringContaining('is not a %XX escape') }],
    ['a%%41', { index: 1, sequence: '%', rule: expect.stringContaining('is not a %XX escape') }],
    ['/x/%FF', { index: 3, sequence: '%FF', rule: expect.stringContaining('not UTF-8') }],
    ['/x/%C3%A9/%E0%A4', { index: 10, sequence: '%E0%A4', rule: expect.stringContaining('not UTF-8') }],
    ['/%ED%A0%80', { index: 1, sequence: '%ED%A0%80', rule: expect.stringContaining('not UTF-8') }],
  ])('finds the problem in %j', (text, expected) => {
    expect(findPercentEncodingProblem(text)).toEqual(expected);
  });

  it('finds a problem exactly when decodeURIComponent throws', () => {
    const piece = fc.oneof(
      fc.constantFrom('%', 'a', '/', '%2', '%25', '%C3', '%A9', '%E0', '%80', '%FF', '%F0', '%9F', '%zz'),
      fc.string({ maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        let throws = false;
        try {
          decodeURIComponent(text);
        } catch {
          throws = true;
        }
        expect(findPercentEncodingProblem(text) !== null).toBe(throws);
      }),
      { numRuns: 500 },
    );
  });
});

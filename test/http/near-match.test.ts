import { editDistance, nearMatch } from '../../src/core/near-match.js';

describe('editDistance', () => {
  it.each([
    ['location', 'location', 0],
    ['locaton', 'location', 1],
    ['strat', 'start', 1],
    ['perpge', 'perpage', 1],
    ['', 'abc', 3],
    ['kitten', 'sitting', 3],
  ])('%s → %s is %d', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
  });
});

describe('nearMatch', () => {
  const names = ['page', 'perPage', 'startTime', 'endTime', 'groupBy'];

  it.each([
    ['per_page', 'perPage'],
    ['STARTTIME', 'startTime'],
    ['start-time', 'startTime'],
    ['strattime', 'startTime'],
    ['groupby', 'groupBy'],
    ['pgae', 'page'],
  ])('takes %s for %s', (word, meant) => {
    expect(nearMatch(word, names)).toBe(meant);
  });

  it('takes a synonym for what it stands for, only when that is a candidate', () => {
    expect(nearMatch('pagesize', names, { pagesize: 'perPage' })).toBe('perPage');
    expect(nearMatch('pagesize', ['page'], { pagesize: 'perPage' })).toBeUndefined();
  });

  it('suggests nothing for a word that is not close, or short and not equal', () => {
    expect(nearMatch('colour', names)).toBeUndefined();
    expect(nearMatch('pg', names)).toBeUndefined();
    expect(nearMatch('constructor', names, {})).toBeUndefined();
  });
});

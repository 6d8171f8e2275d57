import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadScenarios, ScenarioError, SCHEMA_FILE_NAME } from '../../src/scenarios/catalog.js';
import { parseDuration, parseScenarioFile, scenarioJsonSchemaText } from '../../src/scenarios/schema.js';

const valid = {
  description: 'a leak',
  steps: [
    { at: 0, do: 'startAlert', alert: 'leak', type: 'lowLeak' },
    { at: '+5m', do: 'endAlert', alert: 'leak' },
  ],
  expect: { notifications: [{ type: 'lowLeak', active: true }] },
};

const problemsOf = (json: unknown, name = 'ok-name'): string[] =>
  parseScenarioFile('scenarios/x.json', name, JSON.stringify(json)).problems;

describe('the scenario JSON Schema', () => {
  it('committed in scenarios/scenario.schema.json equals the one generated from the zod schema', async () => {
    const committed = await readFile(join('scenarios', SCHEMA_FILE_NAME), 'utf8');
    // To regenerate: npm run build && node dist/scenarios/write-schema.js
    expect(committed).toBe(scenarioJsonSchemaText());
  });
});

describe('parseDuration', () => {
  it.each([
    ['+90s', 90_000],
    ['2m', 120_000],
    ['+1h30m', 5_400_000],
    ['+1d2h', 93_600_000],
    ['+0s', 0],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '+', '90', '+2x', '1m1h', '-5m'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('parseScenarioFile', () => {
  it('accepts a valid file and turns offsets into milliseconds', () => {
    const { scenario, problems } = parseScenarioFile('scenarios/x.json', 'x', JSON.stringify(valid));
    expect(problems).toEqual([]);
    expect(scenario?.steps.map((s) => s.at)).toEqual([0, 300_000]);
    expect(scenario?.durationMs).toBe(300_000);
  });

  it.each([
    [
      'steps out of time order',
      {
        ...valid,
        steps: [
          { at: '+5m', do: 'setHomeAway', homeAway: 'away' },
          { at: 60, do: 'setHomeAway', homeAway: 'home' },
        ],
      },
      'steps[1].at: steps must be in time order',
    ],
    [
      'an unknown action',
      { ...valid, steps: [{ at: 0, do: 'flood' }] },
      'steps[0].do: "do" must be one of startAlert, endAlert',
    ],
    [
      'an unknown alert type',
      { ...valid, steps: [{ at: 0, do: 'startAlert', alert: 'a', type: 'fire' }] },
      'steps[0].type: must be one of lowLeak',
    ],
    [
      'an endAlert of an alert never started',
      { ...valid, steps: [{ at: 0, do: 'endAlert', alert: 'ghost' }] },
      'steps[0].alert: no earlier startAlert step started an active alert "ghost"',
    ],
    [
      'a second start of an active alert',
      { ...valid, steps: [valid.steps[0], valid.steps[0]] },
      'steps[1].alert: alert "leak" is still active',
    ],
    [
      'a bad offset',
      { ...valid, steps: [{ at: '+5 minutes', do: 'setHomeAway', homeAway: 'away' }] },
      'steps[0].at: must be a whole number of seconds, or a duration',
    ],
    [
      'an offset over a year',
      { ...valid, steps: [{ at: '+400d', do: 'setHomeAway', homeAway: 'away' }] },
      'steps[0].at: must be at most one year',
    ],
    [
      'an unknown key in a step',
      { ...valid, steps: [{ at: 0, do: 'setHomeAway', homeAway: 'away', when: 'now' }] },
      'steps[0]: Unrecognized key: "when"',
    ],
    ['no expect block', { description: valid.description, steps: valid.steps }, 'expect:'],
    ['no steps', { ...valid, steps: [] }, 'steps: must list at least one step'],
    [
      'a bad usage scale',
      { ...valid, steps: [{ at: 0, do: 'setUsage', scale: 0 }] },
      'steps[0].scale: must be more than 0',
    ],
  ])('reports %s with the file and the JSON path', (_case, json, expected) => {
    expect(problemsOf(json).join('\n')).toContain(`scenarios/x.json: ${expected}`);
  });

  it("keeps a story: title, premise and each step's caption, all optional", () => {
    const story = {
      ...valid,
      title: 'A drip',
      premise: 'A pipe drips.',
      steps: [{ ...valid.steps[0], caption: 'It starts.' }, valid.steps[1]],
    };
    const { scenario } = parseScenarioFile('scenarios/x.json', 'x', JSON.stringify(story));
    expect(scenario).toMatchObject({ title: 'A drip', premise: 'A pipe drips.' });
    expect(scenario?.steps.map((s) => s.caption)).toEqual(['It starts.', undefined]);
    const plain = parseScenarioFile('scenarios/x.json', 'x', JSON.stringify(valid)).scenario;
    expect(plain && 'title' in plain).toBe(false);
  });

  it.each([
    ['an empty title', { ...valid, title: ' ' }, 'title: must not be empty'],
    ['a long premise', { ...valid, premise: 'x'.repeat(301) }, 'premise: must be at most 300 characters'],
    [
      'a caption that is not text',
      { ...valid, steps: [{ ...valid.steps[0], caption: 3 }, valid.steps[1]] },
      'steps[0].caption',
    ],
  ])('reports %s', (_case, json, expected) => {
    expect(problemsOf(json).join('\n')).toContain(expected);
  });

  it('reports text that is not JSON', () => {
    expect(parseScenarioFile('scenarios/x.json', 'x', '{ "steps": [').problems[0]).toMatch(
      /^scenarios\/x\.json: not valid JSON/,
    );
  });

  it('reports a file name that cannot be a scenario name', () => {
    expect(problemsOf(valid, 'leak alert!')[0]).toContain('scenarios/x.json: the file name must be');
  });
});

describe('loadScenarios', () => {
  it('loads every shipped scenario file of scenarios/ and skips the JSON Schema', async () => {
    const catalog = await loadScenarios('scenarios');
    expect(catalog.size).toBeGreaterThanOrEqual(4);
    expect(catalog.has('scenario.schema')).toBe(false);
  });

  it('finds a story in every shipped scenario: a title, a premise and a caption for each step (the presenter view plays them)', async () => {
    const catalog = await loadScenarios('scenarios');
    for (const scenario of catalog.values()) {
      expect({ name: scenario.name, title: scenario.title, premise: scenario.premise }).toEqual({
        name: scenario.name,
        title: expect.any(String),
        premise: expect.any(String),
      });
      // Written for a prospect: no alert type names or other camelCase words, units spelled out.
      for (const text of [scenario.title, scenario.premise, ...scenario.steps.map((s) => s.caption)]) {
        expect({ name: scenario.name, text }).toEqual({ name: scenario.name, text: expect.any(String) });
        expect(text).not.toMatch(/\b[a-z]+[A-Z]\w*\b|\bgpm\b|°/);
      }
    }
  });

  it('stops with a ScenarioError naming the path of each bad file and the JSON path of the problem', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'scenarios-'));
    await writeFile(join(dir, 'good.json'), JSON.stringify(valid));
    await writeFile(
      join(dir, 'bad.json'),
      JSON.stringify({
        ...valid,
        steps: [{ at: 0, do: 'startAlert', alert: 'x', type: 'lowLeak', peakStatus: 'hot' }],
      }),
    );
    await writeFile(join(dir, SCHEMA_FILE_NAME), '{"not": "a scenario"}');
    const error = await loadScenarios(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as ScenarioError).problems).toEqual([
      `${join(dir, 'bad.json')}: steps[0].peakStatus: must be "too_high", "too_low" or null`,
    ]);
  });

  it('stops with a ScenarioError when SCENARIOS_DIR cannot be read', async () => {
    await expect(loadScenarios('no/such/folder')).rejects.toThrow(/SCENARIOS_DIR no\/such\/folder cannot be read/);
  });
});

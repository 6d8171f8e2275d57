import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

import { parseScenarioFile, type Scenario, type ScenarioCatalog } from './schema.js';

export const SCHEMA_FILE_NAME = 'scenario.schema.json';

export class ScenarioError extends Error {
  constructor(
    readonly problems: string[],
    heading = 'Invalid scenarios:',
  ) {
    super(`${heading}\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ScenarioError';
  }
}

/** The scenario files of a folder: every `*.json` except JSON Schemas (`*.schema.json`). */
export async function scenarioFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    throw new ScenarioError([`SCENARIOS_DIR ${dir} cannot be read: ${(error as Error).message}`]);
  }
  return names
    .filter((n) => n.endsWith('.json') && !n.endsWith('.schema.json'))
    .sort()
    .map((n) => join(dir, n));
}

/** Loads and validates every scenario file of the folder; any problem stops start-up, naming the file and the JSON path. */
export async function loadScenarios(dir: string): Promise<ScenarioCatalog> {
  const catalog = new Map<string, Scenario>();
  const problems: string[] = [];
  for (const file of await scenarioFiles(dir)) {
    const result = parseScenarioFile(file, basename(file, '.json'), await readFile(file, 'utf8'));
    problems.push(...result.problems);
    if (result.scenario) catalog.set(result.scenario.name, result.scenario);
  }
  if (problems.length > 0) throw new ScenarioError(problems);
  return catalog;
}

import type { z } from 'zod';

import type { Scenario, ScenarioCatalog, ScenarioStep } from '../scenarios/index.js';
import type { AccountDoc, DeepReadonly, StoryRecord } from '../store/data.js';
import type { DemoStory } from './operations.js';
import { STORY_SPEEDS } from './page-config.js';
import { storyEndMs } from './story.js';
import { alertName, clockTime, number } from './words.js';

export type StoryView = z.output<typeof DemoStory>;

/** A step of a scenario file that has no caption of its own, in words. */
function stepWords(step: ScenarioStep): string {
  switch (step.do) {
    case 'startAlert':
      return `${alertName(step.type, step.peakStatus ?? null)}: the alert starts.`;
    case 'endAlert':
      return 'The alert ends.';
    case 'setHomeAway':
      return step.homeAway === 'away' ? 'The family leaves: the home is set to away.' : 'The family is back home.';
    case 'disconnectDevice':
      return 'The monitor loses its connection.';
    case 'reconnectDevice':
      return 'The monitor is back online.';
    case 'setUsage':
      return step.scale === 1
        ? 'Water use is back to normal.'
        : `Water use changes to ${number(step.scale)} times the usual.`;
  }
}

/** "slow-leak-escalates" → "Slow leak escalates": a title for a file that has none. */
const titleOf = (scenario: Scenario): string =>
  scenario.title ?? scenario.name.charAt(0).toUpperCase() + scenario.name.slice(1).replace(/[-_]+/g, ' ');

/** "An hour in 1.5 seconds". */
export function speedText(speed: number): string {
  const named = STORY_SPEEDS.find((s) => s.speed === speed);
  if (named) return named.label;
  if (speed === 1) return 'Real time';
  const secondsPerHour = 3600 / speed;
  return secondsPerHour >= 1
    ? `An hour in ${number(secondsPerHour)} seconds`
    : `A day in ${number(86_400 / speed)} seconds`;
}

/** The captions of the last steps done, those at the instant of the last one (two steps at once read as one). */
function captionNow(scenario: Scenario, steps: readonly { caption: string }[], applied: number): string | null {
  const last = scenario.steps[applied - 1];
  if (!last) return null;
  return steps
    .slice(0, applied)
    .filter((_step, index) => scenario.steps[index]?.at === last.at)
    .map((s) => s.caption)
    .join(' ');
}

/** The story as the view shows it, or null when none is loaded (or its scenario is no longer in SCENARIOS_DIR). */
export function presentStory(
  doc: DeepReadonly<AccountDoc>,
  scenarios: ScenarioCatalog,
  timeZone: string,
): StoryView | null {
  const story: DeepReadonly<StoryRecord> | null | undefined = doc.demo?.story;
  const scenario = story ? scenarios.get(story.scenario) : undefined;
  if (!story || !scenario) return null;
  const run = story.runId === null ? undefined : doc.runs.find((r) => r.runId === story.runId);
  const applied = run?.nextStep ?? 0;
  const steps = scenario.steps.map((step, index) => {
    const atMs = story.startMs + step.at;
    return { caption: step.caption ?? stepWords(step), at: clockTime(atMs, timeZone), atMs, done: index < applied };
  });
  return {
    scenario: scenario.name,
    title: titleOf(scenario),
    premise: scenario.premise ?? '',
    state: story.state,
    speed: story.speed,
    speedText: speedText(story.speed),
    startMs: story.startMs,
    nowMs: doc.clock.frozenAtMs ?? story.startMs,
    endMs: storyEndMs(story, scenario),
    steps,
    caption: captionNow(scenario, steps, applied),
  };
}

import type { Run } from '../api-types.js';
import type { Context } from './context.js';
import { badge, byId, el, emptyState, onSubmit } from './dom.js';
import { duration, shortTime } from './format.js';
import { busy, sentence } from './widgets.js';

const RUNS_SHOWN = 5;

/** Run a scenario against the selected location, and follow each run's progress as its steps fall due. */
export class ScenariosPanel {
  constructor(private readonly ctx: Context) {
    onSubmit('run-scenario', (form) => this.#run(form));
    const select = document.getElementById('scenario');
    select?.addEventListener('change', () => this.#describe());
    this.#describe();
    ctx.onSelect(() => ctx.refresh('runs'));
    byId('runs').addEventListener('click', (event) => {
      const button = (event.target as Element).closest<HTMLButtonElement>('button[data-cancel-run]');
      if (button) void this.#cancel(button, button.dataset['cancelRun'] ?? '');
    });
  }

  #describe(): void {
    const select = document.getElementById('scenario');
    if (!(select instanceof HTMLSelectElement)) return;
    const scenario = this.ctx.config.scenarios.find((s) => s.name === select.value);
    byId('scenario-description').textContent = scenario
      ? `${scenario.description} (${scenario.steps} steps over ${duration(scenario.durationSeconds)} of virtual time: advance the clock to play them.)`
      : '';
  }

  async refresh(): Promise<void> {
    const { runs } = await this.ctx.api.get<{ runs: Run[] }>('/sandbox/runs');
    const locationId = this.ctx.selected;
    const mine = runs.filter((r) => r.locationId === locationId).slice(0, RUNS_SHOWN);
    const zone = this.ctx.zone;
    byId('runs').replaceChildren(
      ...(mine.length === 0
        ? [
            emptyState(
              'No scenario has run here yet. Pick one and Run it, then move the clock forward to play its steps.',
            ),
          ]
        : mine.map((run) => {
            const last = run.log[run.log.length - 1];
            return el('li', { 'data-run-id': run.runId, 'data-state': run.state }, [
              el('div', { className: 'run-head' }, [
                badge(run.state),
                ' ',
                el('strong', { text: run.scenario }),
                run.state === 'running'
                  ? el('button', {
                      type: 'button',
                      className: 'danger small',
                      'data-cancel-run': run.runId,
                      'aria-label': `Cancel the ${run.scenario} run`,
                      text: 'Cancel',
                    })
                  : null,
              ]),
              el('div', { className: 'run-progress' }, [
                el('progress', {
                  max: run.steps,
                  value: run.nextStep,
                  'aria-label': `${run.scenario}: step ${run.nextStep} of ${run.steps}`,
                }),
                el('span', { text: ` step ${run.nextStep} of ${run.steps}` }),
                run.nextStepAt
                  ? el('span', { className: 'detail', text: ` · next at ${shortTime(run.nextStepAt, zone)}` })
                  : null,
              ]),
              last
                ? sentence('div', `${last.ok ? '' : 'failed: '}${last.result}`, last.ok ? 'detail' : 'detail bad')
                : null,
            ]);
          })),
    );
  }

  async #cancel(button: HTMLButtonElement, runId: string): Promise<void> {
    try {
      const run = await busy(button, () => this.ctx.api.post<Run>(`/sandbox/runs/${encodeURIComponent(runId)}/cancel`));
      this.ctx.announce(`Scenario ${run.scenario} cancelled: no later step runs; alerts it started stay until ended.`);
      this.ctx.refresh('runs');
    } catch (error) {
      this.ctx.fail(error);
    }
  }

  async #run(form: HTMLFormElement): Promise<void> {
    const select = document.getElementById('scenario');
    if (!(select instanceof HTMLSelectElement) || select.value === '') return;
    const name = select.value;
    try {
      const run = await busy(form.querySelector('button[type="submit"]'), () =>
        this.ctx.api.post<Run>(`/sandbox/scenarios/${encodeURIComponent(name)}/runs`, {
          locationId: this.ctx.selected,
        }),
      );
      this.ctx.announce(`Scenario ${run.scenario} started: ${run.steps} steps. Advance the clock to play them.`);
      this.ctx.refresh('runs', 'alerts', 'deliveries');
    } catch (error) {
      this.ctx.fail(error);
    }
  }
}

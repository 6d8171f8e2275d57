/** The source of "now". Every reading of the time goes through a Clock so tests and the sandbox's virtual clocks can control it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; used by tests and as a building block for frozen virtual clocks. */
export class ManualClock implements Clock {
  #ms: number;

  constructor(start: Date | number) {
    this.#ms = typeof start === 'number' ? start : start.getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  set(time: Date | number): void {
    this.#ms = typeof time === 'number' ? time : time.getTime();
  }

  advance(ms: number): void {
    this.#ms += ms;
  }
}

export const epochSeconds = (date: Date): number => Math.floor(date.getTime() / 1000);

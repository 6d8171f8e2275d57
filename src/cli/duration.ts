import { present } from '../core/errors.js';
import { CliError } from './context.js';

const UNITS: Readonly<Record<string, number>> = { d: 86400, h: 3600, m: 60, s: 1 };

/**
 * Seconds from `3600`, `90s`, `15m`, `1h`, `1h30m`, `2d` (a leading `+` is allowed, as in
 * scenario files). A usage error (exit 2) for anything else, or for zero.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim().replace(/^\+/, '');
  let seconds: number | null = null;
  if (/^\d+(\.\d+)?$/.test(trimmed)) seconds = Number(trimmed);
  else if (/^(\d+(\.\d+)?[dhms])+$/.test(trimmed)) {
    seconds = 0;
    for (const [, amount, unit = ''] of trimmed.matchAll(/(\d+(?:\.\d+)?)([dhms])/g))
      seconds += Number(amount) * present(UNITS[unit], `the unit ${unit}`);
  }
  if (seconds === null || !(seconds > 0)) {
    throw new CliError(
      `${JSON.stringify(text)} is not a duration: give seconds (3600) or units d, h, m, s (90s, 15m, 1h30m, 2d)`,
      2,
    );
  }
  return seconds;
}

/** `+1h30m` style, for progress lines. */
export function formatDuration(totalSeconds: number): string {
  let rest = Math.max(0, Math.round(totalSeconds));
  if (rest === 0) return '+0s';
  let text = '+';
  for (const [unit, size] of Object.entries(UNITS)) {
    const amount = Math.floor(rest / size);
    if (amount > 0) text += `${amount}${unit}`;
    rest -= amount * size;
  }
  return text;
}

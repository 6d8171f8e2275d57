export interface EquivalentMutant {
  file: string;
  code: string;
  through?: string;
  mutators: string[];
  why: string;
}
export const EQUIVALENTS_FILE: URL;
export const MUTATOR_NAMES: readonly string[];
export function loadEquivalents(file?: URL | string): EquivalentMutant[];
export function nameOf(entry: EquivalentMutant): string;
export function locate(
  entry: EquivalentMutant,
  source: string,
):
  { line: number; lastLine: number; problem?: undefined } | { problem: string; line?: undefined; lastLine?: undefined };
export function problemsOf(entries: readonly EquivalentMutant[], readSource: (file: string) => string): string[];
export function directiveOf(entry: EquivalentMutant): string;

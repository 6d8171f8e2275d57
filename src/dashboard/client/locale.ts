/**
 * The locale the page writes dates and numbers in: the browser's first preferred language that
 * Intl accepts, else US English. Browsers report what the machine says, and that is not always
 * a BCP 47 tag: headless Chromium on a machine with LANG=C.UTF-8 (most CI images) reports
 * `en-US@posix`, `--lang=C` reports `C`, and Intl throws a RangeError on both.
 */

const FALLBACK_LOCALE = 'en-US';

/** The tag as Intl supports it, or null ("de_DE.UTF-8@euro" and "en-US@posix" read as POSIX names: "de-DE", "en-US"). */
function supported(tag: string): string | null {
  for (const candidate of [tag, tag.replace(/[.@].*$/, '').replace(/_/g, '-')]) {
    try {
      const [found] = Intl.DateTimeFormat.supportedLocalesOf(candidate);
      if (found !== undefined) return found;
    } catch {
      // Not a BCP 47 tag ("C", "en-US@posix", ""): try the next form, then the next language.
    }
  }
  return null;
}

export function usableLocale(preferred: readonly string[]): string {
  for (const tag of preferred) {
    const found = supported(tag);
    if (found !== null) return found;
  }
  return FALLBACK_LOCALE;
}

export const PAGE_LOCALE = usableLocale(navigator.languages.length > 0 ? navigator.languages : [navigator.language]);

// uPlot 1.6.32 (the latest release) runs `new Intl.NumberFormat(navigator.language)` when its
// module loads, which throws on such a tag and stops the whole page (fixed upstream in uPlot's
// #1054, not yet released). main.ts imports this module before anything imports uPlot, so uPlot
// reads the usable locale instead.
try {
  new Intl.NumberFormat(navigator.language);
} catch {
  Object.defineProperty(navigator, 'language', { value: PAGE_LOCALE, configurable: true });
}

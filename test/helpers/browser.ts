/** The browser tests' Chromium: the same launcher as the screenshots of the docs (npm run screenshots). */
export { launchBrowser, type BrowserLocale } from '../../src/tools/chromium.js';

import { takeViolations } from './openapi-check.js';

// Every test fails when a response it got from the app does not match /openapi.json (see openapi-check.ts).
afterEach(() => {
  const violations = takeViolations();
  if (violations.length > 0)
    throw new Error(`Responses that do not match /openapi.json:\n${violations.map((v) => `  - ${v}`).join('\n')}`);
});

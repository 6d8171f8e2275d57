import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * The licence as a user or a tool finds it: LICENSE is the Apache License 2.0 word for word (a
 * filled-in appendix or an added term would change what partners' lawyers accepted), and
 * package.json and NOTICE say the same.
 */
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

it('LICENSE is the Apache License 2.0, unchanged: the text of apache.org, as the npm packages that ship it have it', () => {
  const licence = readFileSync('LICENSE', 'utf8');
  // apache.org's LICENSE-2.0.txt starts with an empty line, which many repositories leave out (this one too).
  expect(sha256(licence)).toBe('c71d239df91726fc519c6eb72d318ec65820627232b2f796219e87dcf35d0ab4');
  const swaggerUi = readFileSync('node_modules/swagger-ui-dist/LICENSE', 'utf8');
  expect(sha256(swaggerUi)).toBe('cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30');
  expect(`\n${licence}`).toBe(swaggerUi);
  expect(licence).toMatch(/^ {33}Apache License\n {27}Version 2\.0, January 2004\n/);
  expect(licence).toContain('   END OF TERMS AND CONDITIONS\n');
});

it('package.json declares Apache-2.0, and NOTICE names the product and its copyright', () => {
  expect((JSON.parse(readFileSync('package.json', 'utf8')) as { license: string }).license).toBe('Apache-2.0');
  expect(readFileSync('NOTICE', 'utf8')).toMatch(/^water-sandbox\nCopyright \d{4} The water-sandbox authors\n/);
});

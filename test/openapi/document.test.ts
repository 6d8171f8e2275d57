import { writeFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';

import { buildOpenApiDocument } from '../../src/openapi/index.js';

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument({ publicUrl: 'https://sandbox.example.com:8443', version: '0.2.0' });

  it('passes the OpenAPI 3.1 schema validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(document as object);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('dumps', () => {
    writeFileSync('/tmp/openapi.json', JSON.stringify(document, null, 1));
  });
});

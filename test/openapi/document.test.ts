import { readFileSync } from 'node:fs';

import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import { DEMO } from '../../src/http/demo-examples.js';
import { buildOpenApiDocument } from '../../src/openapi/index.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON document read freely
type Json = Record<string, any>;

const document: Json = buildOpenApiDocument({ publicUrl: 'https://sandbox.example.com:8443', version: '0.2.0' });

const operations = (): [string, string, Json][] =>
  Object.entries(document['paths'] as Record<string, Record<string, Json>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => [path, method, op] as [string, string, Json]),
  );

describe('the OpenAPI document', () => {
  it('passes the OpenAPI 3.1 schema validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('points the server and the OAuth 2.0 URLs at the public URL', () => {
    expect(document['servers']).toEqual([expect.objectContaining({ url: 'https://sandbox.example.com:8443' })]);
    expect(document['components'].securitySchemes.oauth2.flows.authorizationCode).toEqual({
      authorizationUrl: 'https://sandbox.example.com:8443/login',
      tokenUrl: 'https://sandbox.example.com:8443/oauth2/token',
      refreshUrl: 'https://sandbox.example.com:8443/oauth2/token',
      scopes: {},
    });
    expect(document['components'].securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('gives every operation a unique operationId, a summary and a response', () => {
    const ids = operations().map(([, , op]) => op['operationId']);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [path, method, op] of operations()) {
      expect([path, method, typeof op['summary']]).toEqual([path, method, 'string']);
      expect(Object.keys(op['responses']).length).toBeGreaterThan(0);
    }
  });

  it('documents the error answers: 401 and 403 with WWW-Authenticate, 429 with Retry-After, the RFC 6749 body on the token endpoint', () => {
    const location = document['paths']['/v1/locations/{locationId}'].get;
    expect(location.responses['401'].headers['WWW-Authenticate']).toBeDefined();
    expect(location.responses['403'].headers['WWW-Authenticate']).toBeDefined();
    expect(location.responses['404'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Error',
    });
    expect(location.responses['429'].headers['Retry-After']).toBeDefined();
    const token = document['paths']['/oauth2/token'].post;
    expect(token.responses['400'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/OAuthError',
    });
    expect(token.responses['401'].headers['WWW-Authenticate']).toBeDefined();
    expect(document['paths']['/v1/locations/{locationId}'].put.responses['415']).toBeDefined();
    expect(document['components'].responses.MethodNotAllowed.headers.Allow.required).toBe(true);
    expect(document['components'].schemas.Error.additionalProperties).toBe(false);
  });

  it("keeps production's exact key sets on the public objects", () => {
    const keys = (name: string): string[] => Object.keys(document['components'].schemas[name].properties).sort();
    expect(keys('Location')).toEqual(['alerts', 'devices', 'homeAway', 'locationId', 'name', 'subscriptionIds']);
    expect(keys('Device')).toEqual(['calibrated', 'connected', 'deviceId', 'type']);
    expect(keys('Subscription')).toEqual(['endpoint', 'locationId', 'status', 'subscriptionId']);
    expect(keys('WaterUsage')).toEqual(['page', 'pageCount', 'perPage', 'readings', 'total', 'units']);
    expect(keys('WaterUsageSummary')).toEqual(['thisMonth', 'thisYear', 'today', 'units']);
    expect(keys('Alert')).toEqual([
      'active',
      'detectedTime',
      'deviceId',
      'peakStatus',
      'peakValue',
      'startTime',
      'stopTime',
      'type',
    ]);
    expect(keys('TokenResponse')).toEqual(['access_token', 'expires_in', 'refresh_token', 'token_type']);
    for (const name of [
      'Location',
      'Device',
      'Subscription',
      'WaterUsage',
      'WaterUsageSummary',
      'Alert',
      'TokenResponse',
    ]) {
      expect([name, document['components'].schemas[name].additionalProperties]).toEqual([name, false]);
    }
  });

  it('marks the deliberate differences from production', () => {
    expect(document['paths']['/v1/locations/{locationId}/subscriptions'].post.description).toContain('SANDBOX');
    expect(document['paths']['/v1/locations/{locationId}/readings/water-usage'].get.description).toContain('SANDBOX');
    for (const [path, , op] of operations().filter(([path]) => path.startsWith('/sandbox'))) {
      const tag = (document['tags'] as Json[]).find((t) => t['name'] === op['tags'][0]);
      expect([path, tag?.['description']]).toEqual([path, expect.stringContaining('SANDBOX')]);
    }
  });

  it('has examples that are valid against their schemas', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addSchema({ $id: 'doc', components: document['components'] });
    const check = (where: string, schema: Json, example: unknown): void => {
      const validate = ajv.compile(
        JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"doc#/components/')),
      );
      expect([where, validate(example) ? 'valid' : ajv.errorsText(validate.errors)]).toEqual([where, 'valid']);
    };
    let checked = 0;
    for (const [path, method, op] of operations()) {
      for (const [status, response] of Object.entries(op['responses'] as Record<string, Json>)) {
        const media = response['content']?.['application/json'];
        if (media?.example !== undefined) {
          check(`${method} ${path} ${status}`, media.schema, media.example);
          checked++;
        }
      }
      const body = op['requestBody']?.content?.['application/json'];
      if (body?.example !== undefined) {
        check(`${method} ${path} request`, body.schema, body.example);
        checked++;
      }
      for (const parameter of op['parameters'] as Json[]) {
        if (parameter['example'] !== undefined) {
          check(`${method} ${path} ${String(parameter['name'])}`, parameter['schema'], parameter['example']);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('uses the demo data of fixtures/default.json in its examples', () => {
    const fixture = JSON.parse(readFileSync('fixtures/default.json', 'utf8')) as Json;
    const demo = fixture['accounts'][0];
    expect(demo.apiKeys).toContain(DEMO.apiKey);
    expect(demo.accountId).toBe(DEMO.accountId);
    expect(demo.locations[0]).toMatchObject({
      locationId: DEMO.locationId,
      name: DEMO.locationName,
      devices: [expect.objectContaining({ deviceId: DEMO.deviceId })],
    });
    expect(fixture['oauthClients']).toContainEqual(
      expect.objectContaining({ clientId: DEMO.clientId, clientSecret: DEMO.clientSecret }),
    );
    expect(document['paths']['/v1/locations/{locationId}'].get.parameters[0].example).toBe(DEMO.locationId);
    expect(document['components'].securitySchemes.apiKey.description).toContain(DEMO.apiKey);
  });
});

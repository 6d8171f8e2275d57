import { randomUUID } from 'node:crypto';

import request from 'supertest';

import { cryptoIds } from '../../src/core/ids.js';
import { buildTestApp } from '../helpers/build-test-app.js';

describe('POST /sandbox/accounts', () => {
  it('makes a fresh e-mail when the random one is taken already, instead of failing', async () => {
    // Two accounts of one seed share the user name; give both the same random part of the e-mail.
    const taken = 'abcdef01-2345-4678-89ab-cdef01234567';
    const uuids = [
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
      taken,
      randomUUID(),
      randomUUID(),
      randomUUID(),
      randomUUID(),
      taken,
    ];
    const t = await buildTestApp({ overrides: { ids: { ...cryptoIds, uuid: () => uuids.shift() ?? randomUUID() } } });

    const first = await request(t.app).post('/sandbox/accounts').send({ locations: 1, seed: 7 }).expect(201);
    const second = await request(t.app).post('/sandbox/accounts').send({ locations: 1, seed: 7 }).expect(201);

    const emailOf = (body: unknown): string => (body as { user: { email: string } }).user.email;
    expect(emailOf(first.body)).toMatch(/\.abcdef0123@sandbox\.example$/);
    expect(emailOf(second.body).split('.')[0]).toBe(emailOf(first.body).split('.')[0]);
    expect(emailOf(second.body)).not.toBe(emailOf(first.body));
    expect(uuids).toEqual([]);
    // Both can sign in with what they were given.
    for (const body of [first.body, second.body] as { apiKey: string }[]) {
      await request(t.app).get('/v1/locations').set('Authorization', `Bearer ${body.apiKey}`).expect(200);
    }
  });
});

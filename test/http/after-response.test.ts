import { once } from 'node:events';

import express from 'express';
import request from 'supertest';

import { afterResponse } from '../../src/http/after-response.js';

describe('afterResponse', () => {
  it('runs every hook once the response is sent, in the order added, from one finish listener', async () => {
    const ran: string[] = [];
    const listeners: number[] = [];
    const app = express();
    app.get('/', (_req, res) => {
      const before = res.listenerCount('finish');
      afterResponse(res, () => ran.push('metrics'));
      afterResponse(res, () => ran.push('journal'));
      afterResponse(res, () => ran.push('log'));
      listeners.push(res.listenerCount('finish') - before);
      res.on('finish', () => ran.push('finish'));
      expect(ran).toEqual([]);
      res.json({ ok: true });
    });
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      await request(server).get('/').expect(200, { ok: true });
      expect(listeners).toEqual([1]);
      expect(ran).toEqual(['metrics', 'journal', 'log', 'finish']);
    } finally {
      server.close();
    }
  });
});

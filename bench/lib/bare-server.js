// A bare Express 5 app in its own process (same settings as the sandbox: no x-powered-by, no
// etag): GET /bare/<name> answers the body stored under that name with res.json, re-serialised
// per request (the sandbox keeps a location's answer and a settled readings page as their bytes,
// and serialises the rest per request). Run by startBareProcess (static-mocks.js): the bodies
// come as a JSON file (argv[2]); it prints `listening <port>` once it listens on a free loopback port.
import { readFileSync } from 'node:fs';

import express from 'express';

const bodies = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/bare/:name', (req, res) => {
  res.json(bodies[req.params.name]);
});
const server = app.listen(0, '127.0.0.1', (error) => {
  if (error) throw error;
  console.log(`listening ${server.address().port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});

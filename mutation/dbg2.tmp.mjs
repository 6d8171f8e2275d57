import { Stryker } from '@stryker-mutator/core';
import { configFor, MUTATION_MODULES } from '/work/wt/mut/mutation/stryker.config.mjs';
const c = configFor([MUTATION_MODULES[0]], { mutate: [process.argv[2]], reportName: 'dbg' });
if (process.env.NOBAIL) c.jest.config.testEnvironment = 'node';
if (process.env.STOCK) { c.testRunner = 'jest'; }
const r = await new Stryker({ ...c, incremental: false, logLevel: process.env.LOG ?? 'info', fileLogLevel: 'off', cleanTempDir: false }).runMutationTest();
for (const m of r) console.log('RESULT', m.id, m.mutatorName, m.status, m.replacement?.slice(0,60), 'covered by', m.coveredBy?.length, 'killedBy', m.killedBy, m.statusReason?.slice(0,300));

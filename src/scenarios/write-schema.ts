import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { SCHEMA_FILE_NAME } from './catalog.js';
import { scenarioJsonSchemaText } from './schema.js';

// Regenerates scenarios/scenario.schema.json from the zod schema:
//   npm run build && node dist/scenarios/write-schema.js [folder]
const dir = process.argv[2] ?? 'scenarios';
await writeFile(join(dir, SCHEMA_FILE_NAME), scenarioJsonSchemaText());
process.stdout.write(`wrote ${join(dir, SCHEMA_FILE_NAME)}\n`);

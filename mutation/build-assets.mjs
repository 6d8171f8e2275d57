// Stryker's buildCommand: the dashboard's bundle in the sandbox, once (test/global-setup.mjs, which jest would run before every mutant).
import globalSetup from '../test/global-setup.mjs';

await globalSetup();

/** What the composition root uses of the presenter view. */
export { demoOperations, DemoScene } from './operations.js';
export { demoRouter, type DemoDeps } from './routes.js';
export { DemoStreams, type DemoStreamLimits } from './hub.js';
export { buildScene, type SceneDeps } from './scene.js';

import { closeRedisTestStores } from '../helpers/build-test-app.js';

afterAll(closeRedisTestStores);

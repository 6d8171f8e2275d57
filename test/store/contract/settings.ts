import type { ContractSuite } from './suite.js';

/** Settings: get, set and a set-if-absent that concurrent callers agree on. */
export function describeSettingsContract(suite: ContractSuite): void {
  const { store } = suite;

  describe('settings', () => {
    it('get is null until set; set replaces; setIfAbsent keeps an existing value and stores a missing one', async () => {
      expect(await store.settings.get('sessionSecret')).toBeNull();
      await store.settings.set('sessionSecret', 's1');
      expect(await store.settings.get('sessionSecret')).toBe('s1');
      await store.settings.set('sessionSecret', 's2');
      expect(await store.settings.get('sessionSecret')).toBe('s2');
      expect(await store.settings.setIfAbsent('sessionSecret', 'ignored')).toBe('s2');
      expect(await store.settings.setIfAbsent('fixtures', 'abc')).toBe('abc');
      expect(await store.settings.get('fixtures')).toBe('abc');
    });

    it('concurrent setIfAbsent calls agree on one value', async () => {
      const values = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.settings.setIfAbsent('secret', `v${i}`)),
      );
      expect(new Set(values).size).toBe(1);
      expect(await store.settings.get('secret')).toBe(values[0]);
    });
  });
}

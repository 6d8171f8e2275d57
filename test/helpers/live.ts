/**
 * An object that stands for whatever `current()` answers at the moment of each use: what a
 * beforeEach made for the running test (its store, its app, its receiver). A file or a shared
 * suite takes it once, outside any test, and uses it in every test as if it were the object
 * itself. Methods run on the object they belong to (classes with private fields work too).
 */
export function live<T extends object>(current: () => T): T {
  return new Proxy({} as T, {
    get: (_, key) => {
      const target = current();
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    set: (_, key, value) => Reflect.set(current(), key, value),
    has: (_, key) => Reflect.has(current(), key),
  });
}

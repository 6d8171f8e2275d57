/**
 * An object that stands for whatever `current()` answers at the moment of each use: what a
 * beforeEach made for the running test (its store, its app, its receiver). A file or a shared
 * suite takes it once, outside any test, and uses it in every test as if it were the object
 * itself. Methods run on the object they belong to (classes with private fields work too).
 * Used while `current()` answers null (outside a test), it throws, naming `what`.
 */
export function live<T extends object>(what: string, current: () => T | null): T {
  const target = (): T => {
    const value = current();
    if (value === null) throw new Error(`${what} exists only while a test runs (it is made before each test)`);
    return value;
  };
  return new Proxy({} as T, {
    get: (_, key) => {
      const object = target();
      const value: unknown = Reflect.get(object, key, object);
      // A method (from the prototype) runs on its object; a function held as data (an Express app) is itself.
      const method = typeof value === 'function' && !Object.hasOwn(object, key);
      return method ? (value as (...args: unknown[]) => unknown).bind(object) : value;
    },
    set: (_, key, value) => Reflect.set(target(), key, value),
    has: (_, key) => Reflect.has(target(), key),
  });
}

/**
 * The size of a value's JSON text in UTF-8 bytes, what `Buffer.byteLength(JSON.stringify(value))`
 * gives (0 where JSON.stringify gives nothing), without writing the text: computed part by part,
 * and kept for every object and array that cannot change any more (frozen, and all it holds too),
 * by identity. A stored account document is deep frozen, and the next one shares its unchanged
 * parts with it (see change-draft.ts), so the size of a changed document costs what the change
 * touched, not the whole document.
 */
const known = new WeakMap<object, number>();

export function jsonBytes(value: unknown): number {
  return valueBytes(value) ?? 0;
}

/** undefined: JSON leaves the value out (in an object; in an array it writes null). */
function valueBytes(value: unknown): number | undefined {
  switch (typeof value) {
    case 'string':
      return stringBytes(value);
    case 'number':
      // The digits of Number#toString, all ASCII; NaN and the infinities are written null.
      return Number.isFinite(value) ? String(value).length : 4;
    case 'boolean':
      return value ? 4 : 5;
    case 'object':
      return value === null ? 4 : objectBytes(value);
    case 'bigint':
      // JSON.stringify throws for it: so does this, with the same error.
      return stringBytes(JSON.stringify(value));
    default:
      return undefined;
  }
}

const stringBytes = (text: string): number => Buffer.byteLength(JSON.stringify(text), 'utf8');

function objectBytes(value: object): number | undefined {
  const cached = known.get(value);
  if (cached !== undefined) return cached;
  const prototype: unknown = Object.getPrototypeOf(value);
  const plain = prototype === Object.prototype || prototype === null;
  if (!Array.isArray(value) && !(plain && typeof (value as { toJSON?: unknown }).toJSON !== 'function')) {
    // Another kind of object (a Date, a class with toJSON): as JSON.stringify writes it, not kept.
    const text = JSON.stringify(value) as string | undefined;
    return text === undefined ? undefined : Buffer.byteLength(text, 'utf8');
  }
  let bytes = 2;
  let stable = Object.isFrozen(value);
  let parts = 0;
  const add = (part: unknown): number | undefined => {
    const size = valueBytes(part);
    if (stable && typeof part === 'object' && part !== null && !known.has(part)) stable = false;
    return size;
  };
  if (Array.isArray(value)) {
    const items = value as unknown[];
    for (let i = 0; i < items.length; i++) bytes += add(items[i]) ?? 4;
    parts = items.length;
  } else {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const size = add(record[key]);
      if (size === undefined) continue;
      bytes += stringBytes(key) + 1 + size;
      parts++;
    }
  }
  bytes += Math.max(0, parts - 1);
  if (stable) known.set(value, bytes);
  return bytes;
}

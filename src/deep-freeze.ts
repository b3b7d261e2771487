// One way to make a shared value immutable in place: answers and records handed to every request, kept contexts.

const DATE_SETTERS = Object.getOwnPropertyNames(Date.prototype).filter((k) => k.startsWith('set')) as Array<keyof Date>;
function refuseChange(): never {
  throw new TypeError('a shared value is immutable: copy it (structuredClone) to change it');
}

/**
 * Freezes `value` and everything it holds in place, and returns it: objects and arrays frozen, a Map's values
 * frozen (the Map itself still answers set: it is the holder's to keep private), a Date's setters shadowed (a frozen
 * Date would still answer setTime). A value already frozen is taken as frozen throughout.
 */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  if (value instanceof Date) {
    for (const k of DATE_SETTERS) Object.defineProperty(value, k, { value: refuseChange });
  } else if (value instanceof Map) {
    for (const v of value.values()) deepFreeze(v);
    return value;
  } else {
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return Object.freeze(value);
}

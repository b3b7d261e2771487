// Text from outside postbook (an airline's words and ids, a webhook receiver's answer) as the store can hold it.

/**
 * `text` with NUL (U+0000, which PostgreSQL's text refuses) as U+FFFD, cut to `max` characters. A write refused for
 * one rolled its transaction back and left what it recorded undone for good: a webhook event pending for ever (a
 * receiver's `OK\0`), a void at 0 never given up and a status look made every second (an airline's error text;
 * found by reviews).
 */
export function storableText(text: string, max = Infinity): string {
  const cut = text.length > max ? text.slice(0, max) : text;
  return cut.includes('\u0000') ? cut.replaceAll('\u0000', '\uFFFD') : cut;
}

/**
 * `value` with every string in it, however deep, as `storableText` makes it: the same object when none holds NUL
 * (an airline's reason and ids in a lifecycle's patch; an airline record copied into an order, a review: a passenger
 * name with NUL made a claim answer HTTP 500). Dates and other non-plain objects are kept as they are.
 */
export function storableDeep<T>(value: T): T {
  return storableValue(value) as T;
}

function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) {
    const items = value as unknown[];
    let out: unknown[] | null = null;
    items.forEach((v, i) => {
      const s = storableValue(v);
      if (s !== v) (out ??= [...items])[i] = s;
    });
    return out ?? value;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const fields = value as Record<string, unknown>;
    let out: Record<string, unknown> | null = null;
    for (const [k, v] of Object.entries(fields)) {
      const s = storableValue(v);
      if (s !== v) (out ??= { ...fields })[k] = s;
    }
    return out ?? value;
  }
  return value;
}

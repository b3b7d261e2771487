// The keys of a process's kept refund state grouped by the order they belong to (decision 0038, amendment of
// 2026-11-29): a refund or void written of an order drops all of them at once, without a walk over the rest.

export class KeysByOrder {
  private readonly keys = new Map<string, Set<string>>();

  add(orderNo: string, key: string): void {
    const ofOrder = this.keys.get(orderNo);
    if (ofOrder) ofOrder.add(key);
    else this.keys.set(orderNo, new Set([key]));
  }

  remove(orderNo: string, key: string): void {
    const ofOrder = this.keys.get(orderNo);
    if (ofOrder?.delete(key) && ofOrder.size === 0) this.keys.delete(orderNo);
  }

  /** How many keys of the order are held. */
  count(orderNo: string): number {
    return this.keys.get(orderNo)?.size ?? 0;
  }

  /** The order's keys, forgotten here (none: empty). */
  take(orderNo: string): Iterable<string> {
    const ofOrder = this.keys.get(orderNo);
    if (!ofOrder) return [];
    this.keys.delete(orderNo);
    return ofOrder;
  }
}

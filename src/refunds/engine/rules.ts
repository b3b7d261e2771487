// Which rule applies: candidate test, window test and ordering (docs/architecture.md "Refund arithmetic" steps 2–3 and edge cases).
import { BoundedMap } from '../../bounded-map.js';
import type { AppliedRule, PassengerType, RefundReason, RefundRule, RuleType, RuleWindow } from './types.js';

/** null and undefined are the same (edge cases: "absent and null mean the same"). */
export function present<T>(value: T | null | undefined): value is T {
  return value !== null && value !== undefined;
}

export function windowOf(rule: RefundRule): RuleWindow {
  return {
    startMinute: present(rule.startMinute) ? rule.startMinute : null,
    endMinute: present(rule.endMinute) ? rule.endMinute : null,
  };
}

/**
 * step 2: `m` inside `(endMinute, startMinute]`, an absent bound open.
 * Edge case: a window with endMinute ≥ startMinute matches nothing. A bound that is not a finite number
 * (NaN from bad data) also matches nothing rather than being read as open.
 */
export function windowContains(window: RuleWindow, m: number): boolean {
  const { startMinute: start, endMinute: end } = window;
  if (start !== null && !Number.isFinite(start)) return false;
  if (end !== null && !Number.isFinite(end)) return false;
  if (start !== null && end !== null && end >= start) return false;
  if (end !== null && !(m > end)) return false;
  if (start !== null && !(m <= start)) return false;
  return true;
}

/** Width used by "narrowest window first"; a window missing a bound is infinitely wide (edge case: they tie). */
export function windowWidth(window: RuleWindow): number {
  if (window.startMinute === null || window.endMinute === null) return Infinity;
  return window.startMinute - window.endMinute;
}

/** Codes as compared (trimmed, upper case), by their text as written: rules and tickets repeat few codes. */
const NORMALIZED = new BoundedMap<string, string>(10_000);

const normalize = (code: string): string => code.trim().toUpperCase();

function normalizedCode(code: string): string {
  return NORMALIZED.getOrMake(code, normalize);
}

export function sameCode(a: string | null | undefined, b: string): boolean {
  if (!present(a)) return false;
  return a === b || normalizedCode(a) === normalizedCode(b);
}

/** The ruleType that reason R looks for (step 2: 0→0, 1→1, 4→4). Types 2 and 3 are never looked up directly. */
export function ruleTypeFor(reason: RefundReason): RuleType {
  return reason;
}

export interface CandidateQuery {
  carrier: string;
  passengerType: PassengerType;
  ruleType: RuleType;
  minutesToDeparture: number;
}

/** step 2: carrier's rules with this ruleType, passengerType equal to the ticket's or absent, m in the window. */
export function isCandidate(rule: RefundRule, q: CandidateQuery): boolean {
  return isCandidateAtAnyTime(rule, q) && windowContains(windowOf(rule), q.minutesToDeparture);
}

/** step 3: passenger-type-specific before generic, then the narrowest window, then list order. */
export function compareCandidates(a: AppliedRule, b: AppliedRule): number {
  const specificA = present(a.rule.passengerType) ? 0 : 1;
  const specificB = present(b.rule.passengerType) ? 0 : 1;
  if (specificA !== specificB) return specificA - specificB;
  const widthA = windowWidth(windowOf(a.rule));
  const widthB = windowWidth(windowOf(b.rule));
  if (widthA !== widthB) return widthA < widthB ? -1 : 1;
  return a.index - b.index;
}

/** All candidates in preference order (first = chosen). */
export function rankCandidates(rules: readonly RefundRule[], q: CandidateQuery): AppliedRule[] {
  if (Object.isFrozen(rules)) return rankedOfFrozen(rules, q);
  return inPreferenceOrder(rules, (rule) => isCandidate(rule, q));
}

/** The rules that `fits`, with their places, in step 3's order. */
function inPreferenceOrder(rules: readonly RefundRule[], fits: (rule: RefundRule) => boolean): AppliedRule[] {
  const found: AppliedRule[] = [];
  rules.forEach((rule, index) => {
    if (fits(rule)) found.push({ rule, index });
  });
  return found.sort(compareCandidates);
}

/**
 * A frozen rule list (an airline's terms, kept by its connector) never changes, and neither does which of its
 * rules fit a (carrier, passenger type, ruleType) nor their preference order (step 3 reads only the rules and their
 * places): both are worked out once per list and query, kept in preference order. Per quote only the window test
 * on the ticket's minutes to departure is left (filtering an ordered list keeps the order). Bounded per list.
 */
const rankedByList = new WeakMap<readonly RefundRule[], BoundedMap<string, readonly AppliedRule[]>>();
const MAX_QUERIES_PER_LIST = 1024;

function rankedOfFrozen(rules: readonly RefundRule[], q: CandidateQuery): AppliedRule[] {
  let byQuery = rankedByList.get(rules);
  if (!byQuery) rankedByList.set(rules, (byQuery = new BoundedMap<string, readonly AppliedRule[]>(MAX_QUERIES_PER_LIST)));
  const key = `${q.carrier}|${q.passengerType}|${q.ruleType}`;
  let ranked = byQuery.get(key);
  if (ranked === undefined) {
    ranked = inPreferenceOrder(rules, (rule) => isCandidateAtAnyTime(rule, q));
    byQuery.set(key, ranked);
  }
  const m = q.minutesToDeparture;
  const out: AppliedRule[] = [];
  for (const a of ranked) if (windowContains(windowOf(a.rule), m)) out.push({ rule: a.rule, index: a.index });
  return out;
}

/** isCandidate but for the window. */
function isCandidateAtAnyTime(rule: RefundRule, q: Omit<CandidateQuery, 'minutesToDeparture'>): boolean {
  return (
    sameCode(rule.airline, q.carrier) &&
    present(rule.ruleType) &&
    (rule.ruleType === q.ruleType || String(rule.ruleType).trim() === q.ruleType) &&
    (!present(rule.passengerType) || sameCode(rule.passengerType, q.passengerType))
  );
}

export function describeWindow(window: RuleWindow): string {
  const end = window.endMinute === null ? '−∞' : String(window.endMinute);
  const start = window.startMinute === null ? '+∞' : String(window.startMinute);
  return `(${end}, ${start}${window.startMinute === null ? ')' : ']'}`;
}

// Cities of the sandbox world: which airports a city code stands for (search.do fromCity/toCity). A built-in
// metropolitan table (general IATA knowledge) that a world's cities[] extends or replaces entry by entry,
// and every airport's own `city`; an airport in no city is its own city. Rule (docs/decisions/0021): a code
// that is an airport of another city means that airport only; a city code means every airport of the city.

/** Built-in metropolitan areas (docs/world.md "cities"). Codes not listed are their own city. */
export const DEFAULT_CITIES: Readonly<Record<string, readonly string[]>> = {
  JKT: ['CGK', 'HLP'],
  TYO: ['HND', 'NRT'],
  OSA: ['KIX', 'ITM', 'UKB'],
  SEL: ['ICN', 'GMP'],
  BJS: ['PEK', 'PKX'],
  SHA: ['PVG', 'SHA'],
  BKK: ['BKK', 'DMK'],
  PAR: ['CDG', 'ORY', 'BVA'],
  LON: ['LHR', 'LGW', 'STN', 'LTN', 'LCY', 'SEN'],
  MIL: ['MXP', 'LIN', 'BGY'],
  ROM: ['FCO', 'CIA'],
  STO: ['ARN', 'BMA', 'NYO'],
  MOW: ['SVO', 'DME', 'VKO'],
  NYC: ['JFK', 'LGA', 'EWR'],
  WAS: ['IAD', 'DCA', 'BWI'],
  CHI: ['ORD', 'MDW'],
  ORL: ['MCO', 'ORL', 'SFB'],
  YTO: ['YYZ', 'YTZ'],
  SAO: ['GRU', 'CGH', 'VCP'],
  RIO: ['GIG', 'SDU'],
  BUE: ['EZE', 'AEP'],
};

export interface CityTable {
  /** city code → its airports (world airports and the table's, known or not to the world) */
  readonly airportsOf: ReadonlyMap<string, ReadonlySet<string>>;
  /** airport code → its city code */
  readonly cityOf: ReadonlyMap<string, string>;
}

/**
 * The city table of a world: the built-in table, each `cities[]` entry replacing the built-in one of its
 * code, then each airport's `city` (an airport moved to another city leaves the one the table gave it).
 */
export function cityTable(airports: ReadonlyArray<{ code: string; city?: string }>, cities: ReadonlyArray<{ code: string; airports: readonly string[] }> = []): CityTable {
  const table = new Map<string, Set<string>>(Object.entries(DEFAULT_CITIES).map(([c, list]) => [c, new Set(list)]));
  for (const c of cities) {
    // an airport belongs to one city: a replacement entry takes its airports out of any other entry
    for (const other of table.values()) for (const a of c.airports) other.delete(a);
    table.set(c.code, new Set(c.airports));
  }
  const cityOf = new Map<string, string>();
  for (const [city, list] of table) for (const a of list) cityOf.set(a, city);
  for (const a of airports) {
    const city = a.city ?? cityOf.get(a.code) ?? a.code;
    const before = cityOf.get(a.code);
    if (before && before !== city) table.get(before)?.delete(a.code);
    cityOf.set(a.code, city);
    if (!table.has(city)) table.set(city, new Set());
    table.get(city)!.add(a.code);
  }
  return { airportsOf: table, cityOf };
}

/**
 * The airports a search code stands for (rule of docs/decisions/0021 / plan §6), or null for a code that is
 * neither a city nor an airport the world knows.
 */
export function airportsForCode(t: CityTable, knownAirports: ReadonlySet<string>, code: string): string[] | null {
  const c = code.toUpperCase();
  const city = t.cityOf.get(c);
  // an airport (of the world or of the table) whose city has another code: that airport only
  if (city !== undefined && city !== c) return [c];
  const list = t.airportsOf.get(c);
  if (list && list.size > 0) return [...list].sort();
  return knownAirports.has(c) ? [c] : null;
}

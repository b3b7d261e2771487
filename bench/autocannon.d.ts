// The part of autocannon 9's programmatic API the benchmark harness uses (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
  }

  interface Options {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    duration?: number;
    timeout?: number;
    pipelining?: number;
    /** Worker threads firing the requests (0 = in this thread). With workers, functions must be file paths. */
    workers?: number;
    /** Each response whose body differs is counted in `mismatches`. */
    expectBody?: string;
    /** Path of a module exporting (body) => boolean; a falsy answer counts in `mismatches` (workers: a path). */
    verifyBody?: string;
    /**
     * Requests in turn; `setupRequest` is the path of a module exporting (request, context) => request, and
     * `onResponse` one exporting (status, body, context) => void, called for each answer (workers: paths).
     */
    requests?: Array<{ method?: Options['method']; path?: string; body?: string; setupRequest?: string; onResponse?: string }>;
    title?: string;
  }

  interface Result {
    title?: string;
    url: string;
    duration: number;
    requests: Histogram;
    latency: Histogram;
    throughput: Histogram;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    resets: number;
    '1xx': number;
    '2xx': number;
    '3xx': number;
    '4xx': number;
    '5xx': number;
    statusCodeStats: Record<string, { count: number }>;
  }

  interface Instance extends PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(opts: Options): Instance;
  export default autocannon;
  export type { Options, Result, Histogram };
}

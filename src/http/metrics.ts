// Prometheus metrics of one app instance (its own registry, so tests and several apps do not collide).
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export class Metrics {
  readonly registry = new Registry();
  private readonly duration = new Histogram({
    name: 'postbook_http_request_duration_seconds',
    help: 'HTTP request duration by route and HTTP status',
    labelNames: ['route', 'http_status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
    registers: [this.registry],
  });

  constructor(defaults = false) {
    if (defaults) collectDefaultMetrics({ register: this.registry });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  observe(route: string, httpStatus: number, seconds: number): void {
    this.duration.observe({ route, http_status: String(httpStatus) }, seconds);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}

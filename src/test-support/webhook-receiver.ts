// A real HTTP receiver on loopback for the webhook tests: records every POST (headers, body), answers as
// told, and can go down (its port closed) and come back up on the same port.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A delivered event as docs/webhooks.md describes it (the fields the tests read). */
export interface DeliveredEvent {
  eventId: string;
  type: string;
  cid: string;
  time: string;
  sequence: number;
  data: { refundCode: string; orderNo: string; previousRefundStatus: number | null; refundStatus: number; [field: string]: unknown };
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** HTTP status answered (2xx: delivered). */
  answer = 200;
  /** Milliseconds to wait before answering. */
  delayMs = 0;
  private server: http.Server | null = null;
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async up(): Promise<void> {
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        this.received.push({ headers: req.headers, body, at: Date.now() });
        setTimeout(() => res.writeHead(this.answer, { 'content-type': 'text/plain' }).end(this.answer < 300 ? 'ok' : 'receiver unhappy'), this.delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  /** The parsed bodies, first receipt of each event id only (what a de-duplicating receiver keeps). */
  events(): DeliveredEvent[] {
    const seen = new Set<string>();
    const out: DeliveredEvent[] = [];
    for (const r of this.received) {
      const e = JSON.parse(r.body) as DeliveredEvent;
      if (seen.has(e.eventId)) continue;
      seen.add(e.eventId);
      out.push(e);
    }
    return out;
  }
}

/** The verification recipe of docs/webhooks.md, as a receiver writes it. */
export function verifyWebhook(secret: string, headers: http.IncomingHttpHeaders, body: string, prefix = 'service', toleranceSeconds = 300): boolean {
  const timestamp = String(headers[`x-${prefix}-webhook-timestamp`] ?? '');
  const signature = String(headers[`x-${prefix}-webhook-signature`] ?? '');
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected));
}

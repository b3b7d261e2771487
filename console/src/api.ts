// The console's calls to /console/api: same-origin cookie session, the CSRF token in a header on every
// state-changing call, errors as ApiFailure with the server's message.
import type { QueueAnswer } from '../../src/console/queue.ts';
import type { RefundDetail, VoidDetail, OrderView } from '../../src/console/detail.ts';
import type { AuditEntry } from '../../src/console/audit.ts';

export type { QueueAnswer, QueueItem } from '../../src/console/queue.ts';
export type { RefundDetail, VoidDetail, OrderView, WebhookDelivery } from '../../src/console/detail.ts';
export type { AuditEntry };
export type { SeatSources, SeatMapView } from '../../src/console/seatmaps.ts';
import type { SeatSources, SeatMapView } from '../../src/console/seatmaps.ts';
export type { Charts } from '../../src/console/charts.ts';
import type { Charts } from '../../src/console/charts.ts';

export type Role = 'viewer' | 'agent' | 'admin';
export interface SessionInfo {
  operator: { login: string; role: Role };
  csrfToken: string;
  expiresAt: string;
  sandbox?: boolean;
  now?: string;
}
export interface Meta {
  cancelReasons: string[];
  facets: { airlines: string[]; clients: string[]; payments: string[] };
}
export interface CaseSummary {
  caseId: string;
  clientId: string;
  orderNo: string;
  carrier: string;
  airlinePnr: string | null;
  status: 'pending' | 'approved' | 'rejected';
  refundCode: string | null;
  cancelReason: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  createdAt: string;
}
export interface CaseDetail {
  caseId: string;
  clientId: string;
  caseStatus: 'pending' | 'approved' | 'rejected';
  request: {
    orderNo: string;
    displayCurrency: string | null;
    refundRequestList: Array<{ lastName: string; firstName: string; refundReason: string; segments: Array<{ depDate: string; flightNo: string; depAirport: string; arrAirport: string }> }>;
  };
  refundCode: string | null;
  cancelReason: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  createdAt: string;
  order: OrderView | null;
  /** A pending case priced as its approval would price it now (null once decided). */
  estimate: CaseEstimate | null;
  audit: AuditEntry[];
}

export interface ClientView {
  clientId: string;
  name: string;
  status: 'active' | 'disabled';
  settings: Record<string, unknown>;
  settingsVersion: string;
  webhookUrl: string | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type { WorldSummary } from '../../src/console/world.ts';
import type { WorldSummary } from '../../src/console/world.ts';
export type { ClientUsage } from '../../src/console/usage.ts';
import type { ClientUsage } from '../../src/console/usage.ts';
export type { EditableSettings as ClientSettingsEdit } from '../../src/console/clients.ts';
export type { CaseEstimate } from '../../src/console/actions.ts';
import type { CaseEstimate } from '../../src/console/actions.ts';
export type { OperatorView } from '../../src/console/operator-admin.ts';
import type { OperatorView } from '../../src/console/operator-admin.ts';
import type { EditableSettings as ClientSettingsEdit } from '../../src/console/clients.ts';

export class ApiFailure extends Error {
  constructor(
    readonly httpStatus: number,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken: string | null = null;
let onLoggedOut: () => void = () => undefined;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}
export function whenLoggedOut(fn: () => void): void {
  onLoggedOut = fn;
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (method !== 'GET') {
    headers['content-type'] = 'application/json';
    if (csrfToken) headers['x-csrf-token'] = csrfToken;
  }
  const res = await fetch(`/console/api${path}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(method !== 'GET' ? { body: JSON.stringify(body ?? {}) } : {}),
  });
  if (res.status === 204) return undefined as T;
  const data = (await res.json().catch(() => ({}))) as { error?: string };
  if (!res.ok) {
    if (res.status === 401 && path !== '/login') onLoggedOut();
    throw new ApiFailure(res.status, data.error ?? `request failed (HTTP ${res.status})`);
  }
  return data as T;
}

export const api = {
  login: (login: string, password: string) => call<SessionInfo>('POST', '/login', { login, password }),
  logout: () => call<void>('POST', '/logout'),
  session: () => call<SessionInfo>('GET', '/session'),
  meta: () => call<Meta>('GET', '/meta'),
  queue: (params: URLSearchParams) => call<QueueAnswer>('GET', `/queue?${params.toString()}`),
  refund: (code: string) => call<{ refund: RefundDetail }>('GET', `/refunds/${encodeURIComponent(code)}`),
  void: (code: string) => call<{ void: VoidDetail }>('GET', `/voids/${encodeURIComponent(code)}`),
  cases: (status: string, after?: string) => call<{ cases: CaseSummary[]; next: string | null }>('GET', `/cases?status=${encodeURIComponent(status)}${after ? `&after=${encodeURIComponent(after)}` : ''}`),
  case: (id: string) => call<{ case: CaseDetail }>('GET', `/cases/${encodeURIComponent(id)}`),
  approve: (id: string) => call<{ refundCode: string }>('POST', `/cases/${encodeURIComponent(id)}/approve`),
  reject: (id: string, cancelReason: string) => call<{ ok: true }>('POST', `/cases/${encodeURIComponent(id)}/reject`, { cancelReason }),
  withdraw: (code: string) => call<{ ok: true; atAirline: boolean }>('POST', `/refunds/${encodeURIComponent(code)}/withdraw`),
  retry: (code: string) => call<{ queued: boolean }>('POST', `/refunds/${encodeURIComponent(code)}/retry`),
  clients: () => call<{ clients: ClientView[] }>('GET', '/clients'),
  addClient: (clientId: string, name: string) => call<{ secret: string }>('POST', '/clients', { clientId, name }),
  rotateClient: (id: string, graceHours: number) => call<{ secret: string; previousSecretExpiresAt: string }>('POST', `/clients/${encodeURIComponent(id)}/rotate`, { graceHours }),
  clientSettings: (id: string, body: ClientSettingsEdit) => call<{ settings: Record<string, unknown> }>('POST', `/clients/${encodeURIComponent(id)}/settings`, body),
  sandboxWorld: () => call<WorldSummary>('GET', '/sandbox/world'),
  reloadSandboxWorld: () => call<WorldSummary & { ordersCreated: number }>('POST', '/sandbox/world/reload'),
  clientsUsage: () => call<{ clients: ClientUsage[] }>('GET', '/clients/usage'),
  clientWebhook: (id: string, url: string | null, rotateSecret = false) => call<{ webhookUrl: string | null; secret: string | null }>('POST', `/clients/${encodeURIComponent(id)}/webhook`, { url, rotateSecret }),
  setClientStatus: (id: string, verb: 'disable' | 'enable') => call<{ ok: true }>('POST', `/clients/${encodeURIComponent(id)}/${verb}`),
  /** Your own new password: answers the new session that replaces this one (every session of the account ends). */
  changeOwnPassword: (currentPassword: string, newPassword: string) => call<SessionInfo>('POST', '/me/password', { currentPassword, newPassword }),
  operators: () => call<{ operators: OperatorView[] }>('GET', '/operators'),
  addOperator: (login: string, role: Role) => call<{ login: string; role: Role; password: string }>('POST', '/operators', { login, role }),
  operatorRole: (login: string, role: Role) => call<{ login: string; role: Role }>('POST', `/operators/${encodeURIComponent(login)}/role`, { role }),
  setOperatorState: (login: string, verb: 'disable' | 'enable') => call<{ login: string; disabled: boolean }>('POST', `/operators/${encodeURIComponent(login)}/${verb}`),
  resetOperatorPassword: (login: string) => call<{ login: string; password: string }>('POST', `/operators/${encodeURIComponent(login)}/password`),
  sandboxClock: () => call<{ now: string; offsetMs: number }>('GET', '/sandbox/clock'),
  /** From the offset the page shows: sent twice, the second is refused (409) instead of moving the clock again. */
  moveSandboxClock: (advanceMinutes: number, fromOffsetMs: number) => call<{ now: string; offsetMs: number }>('POST', '/sandbox/clock', { advanceMinutes, fromOffsetMs }),
  charts: (days: number) => call<Charts>('GET', `/charts?days=${days}`),
  seatSources: () => call<SeatSources>('GET', '/seatmaps/sources'),
  seatMap: (params: URLSearchParams) => call<SeatMapView>('GET', `/seatmaps?${params.toString()}`),
  audit: (target: string, before?: number) => {
    const q = new URLSearchParams();
    if (target) q.set('target', target);
    if (before !== undefined) q.set('before', String(before));
    return call<{ entries: AuditEntry[]; next: number | null }>('GET', `/audit${q.size ? `?${q.toString()}` : ''}`);
  },
  redeliver: (eventId: number) => call<{ ok: true }>('POST', `/webhooks/${eventId}/redeliver`),
};

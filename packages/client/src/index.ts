// @postbook/client: the typed SDK of the postbook service (README.md beside this folder).
export { PostbookClient, METHOD_ENDPOINTS, FINAL_REFUND_STATUSES, FINAL_VOID_STATUSES } from './client.js';
export type { RefundOrder, VoidOrder, WaitOptions, BookingSession, SessionSegment, QuoteAndSubmitOptions } from './client.js';
export type { ClientOptions, CallOptions, SubmitOptions, FetchLike, EndpointKey, RequestOf, ResponseOf } from './transport.js';
export { PostbookClientError, PostbookError, RateLimitedError, TransportError, WaitTimeoutError, WebhookVerificationError } from './errors.js';
export type { PostbookErrorInit, WebhookFailure } from './errors.js';
export { verifyWebhook } from './webhooks.js';
export type { WebhookEvent, RefundEvent, VoidEvent, TicketedEvent, RefundEventData, VoidEventData, TicketedEventData, HeadersLike, VerifyWebhookInput } from './webhooks.js';
export { ENDPOINTS } from './generated/wire.js';
export type * from './generated/wire.js';

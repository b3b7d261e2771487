// The webhook payloads (docs/webhooks.md "Payload", made by src/webhooks/payload.ts) as TypeBox schemas, for
// the OpenAPI document's top-level `webhooks` (OpenAPI 3.1) and the tests that hold payload.ts to them.
import Type, { type TSchema } from 'typebox';
import { OrNull } from '../wire.js';
import { OrderAncillary, PaxTicketInfo } from '../booking/wire-order.js';

const Envelope = <T extends TSchema>(type: string, description: string, data: T) =>
  Type.Object(
    {
      eventId: Type.String({ format: 'uuid', description: 'unique per event, the same on every retry of it: de-duplicate on it' }),
      type: Type.Literal(type),
      cid: Type.String({ description: 'your client id' }),
      status: Type.Literal(-1, { description: "the original interface's envelope field, always -1: internal, never decide from it" }),
      time: Type.String({ format: 'date-time', description: 'when the status changed, ISO 8601 UTC (the service clock)' }),
      sequence: Type.Integer({ minimum: 1, description: 'increases with every event; within one refund or void, a later change has a larger number' }),
      data,
    },
    { additionalProperties: false, description },
  );

const Status = (description: string) => Type.Integer({ description });

export const RefundEvent = Envelope(
  'order.refund',
  'A refund order of the client changed status (docs/webhooks.md "Events")',
  Type.Object(
    {
      orderNo: Type.String(),
      refundCode: Type.String({ description: 'as in queryRefundOrders.do' }),
      previousRefundStatus: OrNull(Status('the status before; null: the refund was just submitted')),
      refundStatus: Status('spec 3.1 refundStatus: 0 processing by the service, 1 airline processing, 2 refunded, 3 airline refunding, 4 rejected, 5 fulfilment done, 6 withdrawn'),
      cancelReason: OrNull(Type.String({ description: 'spec 2.11 text once rejected or withdrawn' })),
      refundReason: OrNull(Type.String({ description: "'0' involuntary, '1' voluntary, '4' void" })),
      refundMethod: OrNull(Type.String()),
      quoteType: OrNull(Type.String()),
      currency: OrNull(Type.String()),
      estimatedRefundAmount: OrNull(Type.Number()),
      actualRefundAmount: OrNull(Type.Number({ description: 'once the airline gave it' })),
      serviceFee: Type.Object({ currency: OrNull(Type.String()), amount: OrNull(Type.Number()) }, { additionalProperties: false }),
      ticketNos: Type.Array(Type.String()),
      completedOn: OrNull(Type.String({ pattern: '^\\d{8}$', description: 'yyyyMMdd the refund reached 2 or 5' })),
      message: OrNull(Type.String({ description: 'human text of the cause; never decide from it' })),
    },
    { additionalProperties: false },
  ),
);

export const VoidEvent = Envelope(
  'order.void',
  'A void order of the client changed status (docs/voids.md, docs/webhooks.md "Events")',
  Type.Object(
    {
      orderNo: Type.String(),
      voidCode: Type.String({ description: 'as in queryVoidOrders.do' }),
      previousVoidStatus: OrNull(Status('the status before; null: the void was just submitted')),
      voidStatus: Status('0 processing by the service, 1 airline processing, 2 voided, 3 airline voiding, 4 rejected, 5 completed'),
      cancelReason: OrNull(Type.String()),
      currency: OrNull(Type.String()),
      voidAmount: OrNull(Type.Number({ description: 'as quoted' })),
      actualRefundAmount: OrNull(Type.Number({ description: 'once the airline gave it' })),
      ticketNos: Type.Array(Type.String()),
      completedOn: OrNull(Type.String({ pattern: '^\\d{8}$', description: 'yyyyMMdd the void reached 2 or 5' })),
      message: OrNull(Type.String()),
    },
    { additionalProperties: false },
  ),
);

const P = PaxTicketInfo.properties;

export const TicketedEvent = Envelope(
  'order.ticketed',
  'An order booked through order.do was ticketed: pay.do, or the service settling a payment whose airline call went unanswered (docs/webhooks.md "Events")',
  Type.Object(
    {
      orderNo: Type.String(),
      orderStatus: Type.Literal(2, { description: 'as queryOrderDetails.do: 2 ticketed' }),
      paxTicketInfos: Type.Array(
        Type.Object(
          { name: P.name, passengerType: P.passengerType, ticketNos: P.ticketNos, airlinePNRs: P.airlinePNRs, ancillaries: Type.Array(OrderAncillary) },
          { additionalProperties: false, description: 'these fields of queryOrderDetails.do paxTicketInfos' },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

/** Every event type postbook sends, with its payload schema and what it is. */
export const WEBHOOK_EVENTS = {
  'order.refund': { schema: RefundEvent, summary: 'A refund status changed' },
  'order.void': { schema: VoidEvent, summary: 'A void status changed' },
  'order.ticketed': { schema: TicketedEvent, summary: 'An order was ticketed' },
} as const;

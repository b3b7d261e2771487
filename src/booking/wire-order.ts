// Wire schemas of order.do, pay.do and queryOrderDetails.do on the original interface's shapes
// (docs/plans/original-chain.md §2.6, §2.8, §2.9, §3.6, §3.8, §3.9; docs/decisions/0023). Requests are lenient
// where the original's documents and samples disagree ("" and null are absent, integers may come as strings);
// the commands check values and answer each family's documented status.
import Type, { type Static } from 'typebox';
import { Nullable, OrNull } from '../wire.js';
import { FullRouting } from './wire.js';

/** An optional string the caller may also send as "" or null (= absent, decision 0021). */
const OptStr = (opts: object = {}) => Nullable(Type.String({ maxLength: 200, ...opts }));
/** Integer or its decimal string (the original's samples mix both). */
const IntOrText = (description: string) => Type.Union([Type.Integer(), Type.String({ maxLength: 12 })], { description });
const Free = Nullable(Type.Object({}, { additionalProperties: true }));

// ---- order.do ----

export const OrderPassenger = Type.Object({
  name: Type.String({ maxLength: 80, description: 'LAST/FIRST (Latin letters, spaces, hyphens)' }),
  passengerType: IntOrText('0 adult, 1 child, 2 infant'),
  gender: OptStr({ maxLength: 10, description: 'M or F (also accepted: MALE, FEMALE, any case); optional here' }),
  birthday: OptStr({ maxLength: 10, description: 'yyyyMMdd; required for a child or infant (407)' }),
  cardType: OptStr({ maxLength: 30, description: 'PP passport, GA, TW, TB, HY (echoed as sent)' }),
  cardNum: OptStr({ maxLength: 30 }),
  cardIssuePlace: OptStr({ maxLength: 3 }),
  cardExpired: OptStr({ maxLength: 10, description: 'yyyyMMdd' }),
  nationality: OptStr({ maxLength: 3 }),
  ffpCardNo: OptStr({ description: 'accepted, not sent to the sandbox airline' }),
  ffpCarrier: OptStr({ maxLength: 3 }),
  residentInfo: Free,
  ancillaries: Nullable(
    Type.Array(Type.Object({ productCode: Type.String({ maxLength: 120 }), segmentIndex: IntOrText('segment of the seat or bag') }), {
      maxItems: 32,
      description: 'seats (seatAvailability.do productCode) and bags (verify.do / getLuggage.do productCode)',
    }),
  ),
});
export type OrderPassenger = Static<typeof OrderPassenger>;

export const Contact = Type.Object({
  name: Type.String({ maxLength: 120, description: 'LAST/FIRST' }),
  email: OptStr({ maxLength: 254, description: 'optional; when given it must be an e-mail address (323)' }),
  mobile: OptStr({ maxLength: 30, description: 'CCCC-NNNNNNNN: country code, dash, number (410)' }),
  address: OptStr(),
  postcode: OptStr({ maxLength: 20 }),
  companyName: OptStr(),
});

export const OrderRequest = Type.Object({
  sessionId: OptStr({ maxLength: 80, description: 'verify.do sessionId (or a re-priced one from a 308/322 answer)' }),
  offerId: OptStr({ maxLength: 80, description: 'getOffers.do offerId; "" = absent' }),
  offerID: OptStr({ maxLength: 80, description: 'the same, spelled as getOffers.do answers it (offerID); either spelling is accepted' }),
  passengers: Type.Array(OrderPassenger, { minItems: 1, maxItems: 18 }),
  contact: Contact,
  clientContact: Free,
  ifSeatOccupied: OptStr({ maxLength: 20, description: 'SIMILAR_SEAT (default), STOP_SEAT, STOP_TICKET; "" = absent' }),
  payment: Nullable(Type.Object({ cardType: OptStr({ maxLength: 20 }) }, { additionalProperties: true })),
  locale: OptStr(),
  requestSource: OptStr(),
});
export type OrderRequest = Static<typeof OrderRequest>;

const Detail = Type.Object({ amount: Type.Number(), currency: Type.String(), deductFrom: Type.String({ description: 'DEPOSIT or CARD' }) });

export const PaymentOption = Type.Object({
  paymentMethod: Type.Integer({ description: '1 deposit, 3 card pass-through' }),
  ticketFare: Detail,
  serviceFee: OrNull(Detail),
  paymentFee: OrNull(Detail),
  cardType: OrNull(Type.String()),
});

export const OrderAncillary = Type.Object({
  productCode: Type.String(),
  segmentIndex: Type.Integer(),
  currency: Type.String(),
  ancillaryPrice: Type.Number(),
  auxBaggageElement: OrNull(Type.Object({ isAllWeight: Type.Boolean(), piece: Type.Integer(), weight: Type.Integer(), size: OrNull(Type.String()) })),
  auxSeatElement: OrNull(Type.Object({ row: Type.String(), column: Type.String() })),
  vendorCurrency: OrNull(Type.String()),
  vendorPrice: OrNull(Type.Number()),
  displayCurrency: OrNull(Type.String()),
  displayPrice: OrNull(Type.Number()),
});

export const PaxTicketInfo = Type.Object({
  name: Type.String({ description: 'LAST/FIRST' }),
  passengerType: Type.Integer(),
  birthday: OrNull(Type.String()),
  gender: OrNull(Type.String()),
  cardNum: OrNull(Type.String()),
  cardType: OrNull(Type.String()),
  cardIssuePlace: OrNull(Type.String()),
  cardExpired: OrNull(Type.String()),
  nationality: OrNull(Type.String()),
  ticketNos: Type.Array(Type.String(), { description: '[] until ticketed' }),
  airlinePNRs: Type.Array(Type.String(), { description: "the airline's locator, once ticketed" }),
  ancillaries: OrNull(Type.Array(OrderAncillary)),
  contactEmails: OrNull(Type.Array(Type.String())),
  contactPhones: OrNull(Type.Array(Type.String())),
});
export type PaxTicketInfo = Static<typeof PaxTicketInfo>;

export const OrderResponse = Type.Object({
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  sessionId: OrNull(Type.String({ description: "echo; on 308/322 a re-priced session that books at the new price (decision 0023)" })),
  offerId: OrNull(Type.String()),
  orderNo: Type.String(),
  pnrCode: Type.String({ description: "postbook's own booking reference (the airline's locator: paxTicketInfos[].airlinePNRs once ticketed)" }),
  totalPrice: Type.Number({ description: 'fares + taxes + seats + bags, without the service fee' }),
  totalTransactionFee: Type.Number(),
  currency: Type.String(),
  vendorTotalPrice: OrNull(Type.Number()),
  vendorCurrency: OrNull(Type.String()),
  tktLimitTime: Type.String({ description: 'payment deadline, yyyy-MM-dd HH:mm:ss GMT+8' }),
  paxTicketInfos: Type.Array(PaxTicketInfo),
  routing: FullRouting,
  duplicateOrders: OrNull(Type.Array(Type.String())),
  paymentOptions: Type.Array(PaymentOption),
});

/** The body of a 308 / 322 answer: the new price and the session that books at it (decision 0023). */
export const RepricedOrderResponse = Type.Object({
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  sessionId: Type.String({ description: 'a re-priced session: order again with it to accept the new price' }),
  offerId: OrNull(Type.String()),
  routing: FullRouting,
  seatPrices: OrNull(
    Type.Array(Type.Object({ passengerIndex: Type.Integer(), segmentIndex: Type.Integer(), seat: Type.String(), price: Type.Number(), currency: Type.String() }), {
      description: '322: the new price of each seat whose price changed',
    }),
  ),
});

// ---- pay.do ----

export const CreditCard = Type.Object({
  cardNumber: OptStr({ maxLength: 25, description: 'Luhn-valid, 12-19 digits, not beginning with 0; handed to the airline, only its last four digits kept' }),
  cardCVV: OptStr({ maxLength: 8, description: '3 or 4 digits; never stored' }),
  cardExpireMonth: Nullable(IntOrText('01-12 (also 1-12, or an integer)')),
  cardExpireYear: Nullable(IntOrText('yy or yyyy')),
  cardHolderFirstName: OptStr({ maxLength: 80 }),
  cardHolderLastName: OptStr({ maxLength: 80 }),
  cardHolderCountry: OptStr({ maxLength: 3 }),
  cardHolderProvince: OptStr({ maxLength: 10 }),
  cardHolderCity: OptStr(),
  cardHolderPostCode: OptStr({ maxLength: 20 }),
  cardHolderAddress: OptStr(),
  reusable: Nullable(Type.Boolean()),
  paymentLimit: Nullable(Type.Number({ description: "the most the card may be charged, in the order's currency; below the order's total: 400; a price above it at issue: 411" })),
  threeDS: Nullable(Type.Object({ ip: OptStr({ maxLength: 64 }) }, { additionalProperties: true })),
});
export type CreditCard = Static<typeof CreditCard>;

export const PayRequest = Type.Object({
  orderNo: Type.String({ maxLength: 40 }),
  paymentMethod: Nullable(IntOrText('1 deposit (default), 3 card pass-through; 4 and 5 answer 403')),
  creditCard: Nullable(CreditCard),
  clientOrderNo: OptStr(),
  requestSource: OptStr(),
});
export type PayRequest = Static<typeof PayRequest>;

export const PayResponse = Type.Object({
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  orderNo: Type.String(),
  paymentMethod: Type.Integer(),
  pnrCode: Type.String(),
  airlines: Type.Array(Type.String()),
  orderStatus: Type.Integer({ description: 'extra: 2 once the airline has issued the tickets' }),
  cardLast4: OrNull(Type.String()),
  paxTicketInfos: Type.Array(PaxTicketInfo),
});

// ---- queryOrderDetails.do ----

export const QueryOrderRequest = Type.Object({
  orderNo: OptStr({ maxLength: 40 }),
  pnrCode: OptStr({ maxLength: 12, description: "the pnrCode the order shows: postbook's booking reference (order.do pnrCode), or a claimed order's airline locator (pnr/claim.do pnrCode)" }),
  airlinePNR: OptStr({ maxLength: 12, description: "the airline's locator; with carrier" }),
  carrier: OptStr({ maxLength: 3 }),
  requestSource: OptStr(),
});
export type QueryOrderRequest = Static<typeof QueryOrderRequest>;

export const QueryOrderResponse = Type.Object({
  status: Type.Integer(),
  msg: OrNull(Type.String()),
  orderNo: Type.String(),
  pnrCode: Type.String(),
  orderStatus: Type.Integer({ description: '0 unpaid, 1 ticketing, 2 ticketed, -3 cancelled (an integer, as the UAT collection compares it)' }),
  ticketStatus: Type.String({ description: '"0" not issued, "1" issued' }),
  paxTicketInfos: Type.Array(PaxTicketInfo),
  totalPrice: Type.Number({ description: 'without the service fee' }),
  currency: Type.String(),
  tktLimitTime: Type.String({ description: 'payment deadline, yyyy-MM-dd HH:mm:ss GMT+8' }),
  vendorTotalPrice: OrNull(Type.Number()),
  vendorCost: OrNull(Type.Number()),
  vendorTotalAncillaryPrice: OrNull(Type.Number()),
  vendorCurrency: OrNull(Type.String()),
  adultTotalFare: Type.Number(),
  childTotalFare: Type.Number(),
  infantTotalFare: OrNull(Type.Number()),
  totalAncillaryPrice: OrNull(Type.Number()),
  totalTransactionFee: Type.Number(),
  supportPaymentMethod: Type.Number(),
  supportPaymentMethods: Type.Array(Type.Integer()),
  paymentMethod: OrNull(Type.Integer()),
  routing: FullRouting,
  airlineBookings: Type.Array(
    Type.Object({
      airlineCode: Type.String(),
      airlineName: OrNull(Type.String()),
      airlinePnr: OrNull(Type.String()),
      airlineWebSiteAddress: OrNull(Type.String()),
      mmbEmail: Type.String(),
      tailDigitsOfPaymentCard: OrNull(Type.String()),
    }),
  ),
  itineraryDownload: Type.String(),
  contact: Type.Object({
    name: Type.String(),
    address: OrNull(Type.String()),
    postcode: OrNull(Type.String()),
    email: OrNull(Type.String()),
    mobile: OrNull(Type.String()),
    companyName: OrNull(Type.String()),
  }),
  errorCode: OrNull(Type.String()),
  errorMessage: OrNull(Type.String()),
  airlineMessage: OrNull(Type.String()),
  refundRules: OrNull(Type.Array(Type.Object({}, { additionalProperties: true }))),
  ifSeatOccupied: OrNull(Type.String()),
  paymentOptions: OrNull(Type.Array(PaymentOption)),
  payment: OrNull(PaymentOption),
  paymentAttempted: OrNull(Type.Boolean()),
});

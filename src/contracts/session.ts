import { type Static, Type } from 'typebox';
import { CaptureMethod, Order, Template, Urls } from './create-request.js';
import { Currency, DateTime, Link, Metadata, Minor } from './primitives.js';

/** A hosted payment page session (`POST /payments/sessions`, spec §4.3, wire §2). */
export const SessionResponse = Type.Object({
  sessionId: Type.String(),
  transId: Type.String(),
  refNr: Type.Optional(Type.String()),
  externalIntegrationId: Type.Optional(Type.String()),
  requestId: Type.Optional(Type.String()),
  merchantId: Type.String(),
  /** FAILED: the session's card tries are used up (card-testing protection); `responseCode` 20040004 says so. */
  status: Type.Enum(['OPEN', 'COMPLETED', 'FAILED', 'EXPIRED']),
  responseCode: Type.Optional(Type.String({ pattern: '^[0-9]{8}$' })),
  amount: Type.Object({ value: Minor, currency: Currency }),
  captureMethod: CaptureMethod,
  language: Type.Optional(Type.String()),
  template: Type.Optional(Template),
  order: Type.Optional(Order),
  urls: Urls,
  metadata: Type.Optional(Metadata),
  payId: Type.Optional(Type.String()),
  expiresAt: DateTime,
  expirationTime: DateTime,
  creationDate: DateTime,
  _links: Type.Object({ self: Link, redirect: Link, payment: Type.Optional(Link) }),
});
export type SessionResponse = Static<typeof SessionResponse>;

import { Type } from 'typebox';

const Url = Type.String({ format: 'uri', maxLength: 2048 });
const ChallengeWindowSize = Type.Union(['01', '02', '03', '04', '05'].map((v) => Type.Literal(v)));

/** `amount`: `value` integer minor units of ISO 4217 `currency` (DESIGN.md §4). */
export const AmountSchema = Type.Object(
  {
    value: Type.Integer({ minimum: 1, maximum: 99_999_999_999, description: 'ISO 4217 minor units' }),
    currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 alphabetic code' }),
  },
  { additionalProperties: false },
);

export const CardSchema = Type.Object(
  {
    number: Type.String({ pattern: '^[0-9]{12,19}$', description: 'PAN, digits only' }),
    expiryDate: Type.String({ pattern: '^[0-9]{4}(0[1-9]|1[0-2])$', description: 'YYYYMM' }),
    securityCode: Type.String({ pattern: '^[0-9]{3,4}$' }),
    cardholderName: Type.Optional(Type.String({ minLength: 1, maxLength: 45 })),
  },
  { additionalProperties: false },
);

export const BrowserInfoSchema = Type.Object(
  {
    acceptHeaders: Type.String({ minLength: 1, maxLength: 2048 }),
    ipAddress: Type.Optional(Type.String({ anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] })),
    javaScriptEnabled: Type.Boolean(),
    language: Type.String({ minLength: 1, maxLength: 35 }),
    colorDepth: Type.Optional(Type.Union([1, 4, 8, 15, 16, 24, 32, 48].map((v) => Type.Literal(v)))),
    screenHeight: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999 })),
    screenWidth: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999 })),
    timeZoneOffset: Type.Optional(Type.Integer({ minimum: -840, maximum: 840, description: 'minutes' })),
    userAgent: Type.String({ minLength: 1, maxLength: 2048 }),
    challengeWindowSize: Type.Optional(ChallengeWindowSize),
  },
  { additionalProperties: false },
);

export const SdkInfoSchema = Type.Object(
  {
    sdkTransID: Type.String({ format: 'uuid' }),
    sdkAppID: Type.String({ format: 'uuid' }),
    sdkEphemPubKey: Type.Object({ kty: Type.String() }, { additionalProperties: true }),
    sdkReferenceNumber: Type.String({ minLength: 1, maxLength: 32 }),
    sdkMaxTimeout: Type.Integer({ minimum: 5, maximum: 99, description: 'minutes' }),
  },
  { additionalProperties: false },
);

/** Body of `POST /api/v1/payments`. */
export const CreatePaymentBodySchema = Type.Object(
  {
    transId: Type.String({ pattern: '^[\\x21-\\x7E]{1,64}$', description: "The merchant's id of the payment" }),
    refNr: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    amount: AmountSchema,
    captureMethod: Type.Optional(
      Type.Object(
        { type: Type.Union([Type.Literal('AUTOMATIC'), Type.Literal('MANUAL')]) },
        { additionalProperties: false },
      ),
    ),
    language: Type.Optional(Type.Union(['en', 'da', 'fi', 'nb', 'sv'].map((v) => Type.Literal(v)))),
    channel: Type.Optional(Type.Union([Type.Literal('BROWSER'), Type.Literal('APP')])),
    paymentMethods: Type.Object(
      {
        type: Type.Literal('CARD'),
        integrationType: Type.Union([Type.Literal('DIRECT'), Type.Literal('HOSTED')]),
        card: Type.Optional(CardSchema),
      },
      { additionalProperties: false },
    ),
    threeDsPolicy: Type.Optional(
      Type.Object(
        {
          challengePreference: Type.Union(
            ['NO_PREFERENCE', 'NO_CHALLENGE', 'REQUEST_CHALLENGE', 'MANDATE_CHALLENGE'].map((v) => Type.Literal(v)),
          ),
          browserAuthentication: Type.Optional(
            Type.Union([Type.Literal('SYNCHRONOUS'), Type.Literal('REDIRECT')], {
              description:
                'DIRECT browser payments: SYNCHRONOUS (default) authenticates during the call; REDIRECT answers ' +
                "PENDING with _links.redirect.href to Kassa's 3DS Method page (docs/3ds.md)",
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    browserInfo: Type.Optional(BrowserInfoSchema),
    sdkInfo: Type.Optional(SdkInfoSchema),
    order: Type.Optional(
      Type.Object(
        {
          merchantReference: Type.Optional(Type.String({ maxLength: 64 })),
          items: Type.Optional(
            Type.Array(
              Type.Object(
                {
                  name: Type.String({ minLength: 1, maxLength: 200 }),
                  quantity: Type.Integer({ minimum: 1 }),
                  unitPrice: Type.Integer({ minimum: 0, description: 'minor units' }),
                },
                { additionalProperties: false },
              ),
              { maxItems: 100 },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    customerInfo: Type.Optional(
      Type.Object(
        {
          email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
          firstName: Type.Optional(Type.String({ maxLength: 100 })),
          lastName: Type.Optional(Type.String({ maxLength: 100 })),
        },
        { additionalProperties: false },
      ),
    ),
    urls: Type.Optional(
      Type.Object(
        { return: Type.Optional(Url), cancel: Type.Optional(Url), webhook: Type.Optional(Url) },
        { additionalProperties: false },
      ),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 500 }), { maxProperties: 50 }),
    ),
  },
  { additionalProperties: false },
);

export const PayIdParamsSchema = Type.Object({ payID: Type.String({ minLength: 1, maxLength: 64 }) });
export const TransIdParamsSchema = Type.Object({ transID: Type.String({ minLength: 1, maxLength: 64 }) });

export const IdempotencyHeadersSchema = Type.Object({
  'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
});

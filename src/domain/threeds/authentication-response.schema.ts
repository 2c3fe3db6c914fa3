/**
 * JSON Schema (draft 2020-12) of the spec §2.1 `authenticationResponse` object, published at
 * `/schemas/authentication-response.json` (DESIGN.md §4) and committed as `schemas/authentication-response.json`
 * (a test keeps the two equal).
 *
 * Base rules: spec §2.1 rule 2 (no other property: additionalProperties false everywhere), rule 3 (every property
 * but acsDecConInd required; enums include the empty string), lengths of spec §2.1–§2.3 and §8.
 * Conditional rules (`allOf` of `if`/`then`): spec §3 fields required per transStatus, spec §2.3 (challengeRequest
 * filled exactly for C), spec §9.2 (2.2.0-only values absent in 2.1.0), EMVCo (whiteListStatusSource accompanies
 * whiteListStatus). Cross-field equality (challengeRequest echoing the ids) is beyond JSON Schema and is checked by
 * validateAuthenticationResponse.
 */

/** The `$id` of the schema: where a Kassa deployment publishes it, relative to its own public URL. */
export const AUTHENTICATION_RESPONSE_SCHEMA_ID = 'https://kassa.dev/schemas/authentication-response.json';

const nonEmpty = { type: 'string', minLength: 1 };
const TRANS_STATUS_REASONS = [
  ...Array.from({ length: 26 }, (_, i) => String(i + 1).padStart(2, '0')),
  ...Array.from({ length: 9 }, (_, i) => String(80 + i)),
];
const CHALLENGE_REQUEST_MEMBERS = [
  'threeDSServerTransID',
  'acsTransID',
  'challengeWindowSize',
  'messageVersion',
  'messageType',
];

/** `if` clause: transStatus is one of `values`. */
const whenStatus = (...values: string[]) => ({
  required: ['transStatus'],
  properties: { transStatus: values.length === 1 ? { const: values[0] } : { enum: values } },
});

/**
 * One conditional rule: `{ $comment, if, then, else? }`. `then` is the JSON Schema keyword, not a thenable (the
 * schema is data, never awaited); building rules here keeps Biome's noThenProperty quiet without suppressions.
 */
function rule(comment: string, when: object, then: object, otherwise?: object): Record<string, unknown> {
  const conditional: Record<string, unknown> = { $comment: comment, if: when, then };
  if (otherwise !== undefined) conditional.else = otherwise;
  return conditional;
}

/** The schema as a plain JSON object (no functions, no undefined), so it serialises 1:1 to the committed file. */
export const authenticationResponseSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: AUTHENTICATION_RESPONSE_SCHEMA_ID,
  title: 'authenticationResponse',
  description:
    'The 3-D Secure authentication result (ARes) carried in the Authentication Notification. ' +
    'Every property except acsDecConInd is present; a property whose condition does not apply holds the empty string.',
  type: 'object',
  additionalProperties: false,
  required: [
    'threeDSServerTransID',
    'acsChallengeMandated',
    'acsOperatorID',
    'acsReferenceNumber',
    'acsRenderingType',
    'acsSignedContent',
    'acsTransID',
    'acsURL',
    'authenticationType',
    'authenticationValue',
    'broadInfo',
    'cardholderInfo',
    'dsReferenceNumber',
    'dsTransID',
    'eci',
    'messageExtension',
    'messageType',
    'messageVersion',
    'sdkTransID',
    'transStatus',
    'transStatusReason',
    'whiteListStatus',
    'whiteListStatusSource',
    'challengeRequest',
    'base64EncodedChallengeRequest',
    'threeDSCompInd',
  ],
  properties: {
    threeDSServerTransID: {
      description: 'Payment identifier of the service, canonical UUID (RFC 4122).',
      type: 'string',
      maxLength: 36,
      pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    },
    acsChallengeMandated: {
      description: 'true: challenge mandated by local/regional rules; false: not mandated.',
      type: 'boolean',
    },
    acsDecConInd: {
      description: 'ACS confirms decoupled authentication. Required (true) if transStatus = D.',
      type: 'boolean',
    },
    acsOperatorID: { type: 'string', maxLength: 32 },
    acsReferenceNumber: { type: 'string', minLength: 1, maxLength: 32 },
    acsRenderingType: {
      description: 'App-based only; both members empty when not applicable.',
      type: 'object',
      additionalProperties: false,
      required: ['acsInterface', 'acsUiTemplate'],
      properties: {
        acsInterface: { type: 'string', enum: ['native', 'html', ''] },
        acsUiTemplate: { type: 'string', enum: ['text', 'singleSelect', 'multiSelect', 'oob', 'other', ''] },
      },
    },
    acsSignedContent: { description: 'App-based only: compact JWS created by the ACS.', type: 'string' },
    acsTransID: { type: 'string', minLength: 1, maxLength: 36 },
    acsURL: {
      description: 'ACS URL for the challenge request; empty for app-based flows (inside acsSignedContent).',
      type: 'string',
      maxLength: 2048,
      anyOf: [{ maxLength: 0 }, { format: 'uri' }],
    },
    authenticationType: { type: 'string', enum: ['static', 'dynamic', 'oob', 'decoupled', ''] },
    authenticationValue: { type: 'string', maxLength: 28 },
    broadInfo: { type: 'string', maxLength: 4096 },
    cardholderInfo: { type: 'string', maxLength: 128 },
    dsReferenceNumber: { type: 'string', minLength: 1, maxLength: 32 },
    dsTransID: { type: 'string', minLength: 1, maxLength: 36 },
    eci: { type: 'string', maxLength: 2 },
    messageExtension: { type: 'string', maxLength: 81920 },
    messageType: { type: 'string', const: 'ARes' },
    messageVersion: { type: 'string', minLength: 5, maxLength: 8 },
    sdkTransID: { type: 'string', maxLength: 36 },
    transStatus: { type: 'string', enum: ['Y', 'N', 'U', 'A', 'C', 'D', 'R', 'I', ''] },
    transStatusReason: { type: 'string', enum: [...TRANS_STATUS_REASONS, ''] },
    whiteListStatus: { type: 'string', enum: ['Y', 'N', 'E', 'P', 'R', 'U', ''] },
    whiteListStatusSource: { type: 'string', enum: ['01', '02', '03', ''] },
    challengeRequest: {
      description: 'Empty object, or all five members when transStatus = C (spec §2.3).',
      type: 'object',
      additionalProperties: false,
      properties: {
        threeDSServerTransID: { type: 'string', maxLength: 36 },
        acsTransID: { type: 'string', maxLength: 36 },
        challengeWindowSize: { type: 'string', enum: ['01', '02', '03', '04', '05'] },
        messageVersion: { type: 'string', minLength: 5, maxLength: 8 },
        messageType: { type: 'string', const: 'CReq' },
      },
      anyOf: [{ maxProperties: 0 }, { required: CHALLENGE_REQUEST_MEMBERS }],
    },
    base64EncodedChallengeRequest: {
      description: 'Standard Base64 of the JSON of challengeRequest; empty unless transStatus = C.',
      type: 'string',
      pattern: '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$',
    },
    threeDSCompInd: { type: 'string', enum: ['Y', 'N', 'U', ''] },
  },
  allOf: [
    rule('spec §3: Y and A require authenticationValue.', whenStatus('Y', 'A'), {
      properties: { authenticationValue: nonEmpty },
    }),
    rule('spec §3: N, U and R require transStatusReason.', whenStatus('N', 'U', 'R'), {
      properties: { transStatusReason: nonEmpty },
    }),
    rule(
      'spec §3, §2.3: C requires authenticationType, acsURL or acsSignedContent, and the challenge request; ' +
        'otherwise challengeRequest is {} and base64EncodedChallengeRequest empty.',
      whenStatus('C'),
      {
        properties: {
          authenticationType: nonEmpty,
          challengeRequest: { required: CHALLENGE_REQUEST_MEMBERS },
          base64EncodedChallengeRequest: nonEmpty,
        },
        anyOf: [{ properties: { acsURL: nonEmpty } }, { properties: { acsSignedContent: nonEmpty } }],
      },
      {
        properties: {
          challengeRequest: { maxProperties: 0 },
          base64EncodedChallengeRequest: { const: '' },
        },
      },
    ),
    rule(
      'spec §2.1, §3: an app-based (sdkTransID) challenge carries acsSignedContent and acsRenderingType.',
      { required: ['transStatus', 'sdkTransID'], properties: { transStatus: { const: 'C' }, sdkTransID: nonEmpty } },
      {
        properties: {
          acsSignedContent: nonEmpty,
          acsRenderingType: { properties: { acsInterface: nonEmpty, acsUiTemplate: nonEmpty } },
        },
      },
    ),
    rule('spec §3: D requires acsDecConInd = true, authenticationType decoupled and cardholderInfo.', whenStatus('D'), {
      required: ['acsDecConInd'],
      properties: {
        acsDecConInd: { const: true },
        authenticationType: { const: 'decoupled' },
        cardholderInfo: nonEmpty,
      },
    }),
    rule(
      'spec §2.1 cardholderInfo: required if acsDecConInd = true.',
      { required: ['acsDecConInd'], properties: { acsDecConInd: { const: true } } },
      { properties: { cardholderInfo: nonEmpty } },
    ),
    rule(
      'spec §9.2: whiteListStatus, whiteListStatusSource and decoupled exist from 2.2.0 only.',
      { required: ['messageVersion'], properties: { messageVersion: { const: '2.1.0' } } },
      {
        properties: {
          whiteListStatus: { const: '' },
          whiteListStatusSource: { const: '' },
          authenticationType: { not: { const: 'decoupled' } },
        },
      },
    ),
    rule(
      'EMVCo whiteListStatusSource: required when whiteListStatus is present.',
      { required: ['whiteListStatus'], properties: { whiteListStatus: nonEmpty } },
      { properties: { whiteListStatusSource: nonEmpty } },
    ),
  ],
};

/**
 * The RReq/RRes step of EMV 3DS as the 3DS Server handles it: the DS delivers the final result of a challenge or a
 * decoupled authentication (RReq); the 3DS Server checks it against what it knows of the transaction and answers an
 * RRes (or an EMVCo Erro). Pure: no I/O.
 */
import { isUuid } from '../ports/id-generator.js';
import type { MessageVersion, ResultsRequest, ResultsResponse, ThreeDSErrorMessage } from './three-ds-messages.js';
import { isAtLeast220 } from './three-ds-server.js';

/**
 * Where a directory server delivers RReq messages: the 3DS Server's results endpoint (EMVCo threeDSServerURL). A real
 * DS POSTs the RReq over HTTPS; the built-in simulated DS calls this function in process. Resolves to the RRes, or
 * to an Erro when the RReq is refused (unknown transaction, invalid message). Never rejects for a refused RReq.
 */
export type ResultsRequestHandler = (rreq: ResultsRequest) => Promise<ResultsResponse | ThreeDSErrorMessage>;

/** What the 3DS Server knows of a transaction awaiting its RReq (from its ARes). */
export interface AwaitedResults {
  threeDSServerTransID: string;
  acsTransID: string;
  dsTransID?: string;
  messageVersion: MessageVersion;
}

const AUTHENTICATION_VALUE = /^(?:[A-Za-z0-9+/]{28}|[A-Za-z0-9+/]{27}=|[A-Za-z0-9+/]{26}==)$/;
const REASON = /^(0[1-9]|1[0-9]|2[0-6]|8[0-8])$/;

/** One reason an RReq is refused: EMVCo errorCode 201 (required element missing) or 203 (invalid element). */
export interface RReqProblem {
  errorCode: '201' | '203';
  field: string;
}

/**
 * Checks an RReq against the transaction it claims to finish (EMV 3DS RReq rules, spec §2.1/§3): messageType RReq,
 * messageVersion, acsTransID and dsTransID equal to the ARes's, messageCategory 01, transStatus one of Y N U A R,
 * authenticationValue (28 Base64 characters) and eci for Y/A, transStatusReason 01–26/80–88 for N/U/R, and no
 * 2.2.0-only field (whiteListStatus, authenticationType 04) in 2.1.0 (spec §9.2). Reads the RReq as untrusted data.
 * @returns the problems; empty when the RReq can be acted on.
 */
export function checkRReq(rreq: ResultsRequest, awaited: AwaitedResults): RReqProblem[] {
  const raw = rreq as unknown as Record<string, unknown>;
  const problems: RReqProblem[] = [];
  const missing = (field: string) => problems.push({ errorCode: '201', field });
  const invalid = (field: string) => problems.push({ errorCode: '203', field });
  if (raw.messageType !== 'RReq') invalid('messageType');
  if (raw.messageVersion !== awaited.messageVersion) invalid('messageVersion');
  if (raw.threeDSServerTransID !== awaited.threeDSServerTransID) invalid('threeDSServerTransID');
  if (typeof raw.acsTransID !== 'string' || !isUuid(raw.acsTransID)) missing('acsTransID');
  else if (raw.acsTransID !== awaited.acsTransID) invalid('acsTransID');
  if (typeof raw.dsTransID !== 'string') missing('dsTransID');
  else if (awaited.dsTransID !== undefined && raw.dsTransID !== awaited.dsTransID) invalid('dsTransID');
  if (raw.messageCategory !== '01') invalid('messageCategory');
  const status = raw.transStatus;
  if (status === undefined) missing('transStatus');
  else if (!['Y', 'N', 'U', 'A', 'R'].includes(status as string)) invalid('transStatus');
  const value = raw.authenticationValue;
  if (value !== undefined && (typeof value !== 'string' || !AUTHENTICATION_VALUE.test(value))) {
    invalid('authenticationValue');
  }
  const eci = raw.eci;
  if (eci !== undefined && (typeof eci !== 'string' || !/^\d{2}$/.test(eci))) invalid('eci');
  const reason = raw.transStatusReason;
  if (reason !== undefined && (typeof reason !== 'string' || !REASON.test(reason))) invalid('transStatusReason');
  if (status === 'Y' || status === 'A') {
    if (value === undefined) missing('authenticationValue');
    if (eci === undefined) missing('eci');
  }
  if ((status === 'N' || status === 'U' || status === 'R') && reason === undefined) missing('transStatusReason');
  const type = raw.authenticationType;
  if (type !== undefined && !['01', '02', '03', '04'].includes(type as string)) invalid('authenticationType');
  if (!isAtLeast220(awaited.messageVersion)) {
    if (type === '04') invalid('authenticationType');
    if (raw.whiteListStatus !== undefined) invalid('whiteListStatus');
    if (raw.whiteListStatusSource !== undefined) invalid('whiteListStatusSource');
  }
  return problems;
}

/** The RRes acknowledging an accepted RReq (resultsStatus 01: received for further processing). */
export function resultsResponse(rreq: ResultsRequest): ResultsResponse {
  return {
    messageType: 'RRes',
    messageVersion: rreq.messageVersion,
    threeDSServerTransID: rreq.threeDSServerTransID,
    acsTransID: rreq.acsTransID,
    dsTransID: rreq.dsTransID,
    resultsStatus: '01',
  };
}

/**
 * The EMVCo Erro the 3DS Server answers a refused RReq with (errorComponent S, errorMessageType RReq):
 * 301 when the transaction is unknown or no longer awaits a result, else 201/203 from the problems.
 */
export function rreqError(rreq: ResultsRequest, problems: RReqProblem[] | 'UNKNOWN_TRANSACTION'): ThreeDSErrorMessage {
  const raw = rreq as unknown as Record<string, unknown>;
  const base = {
    messageType: 'Erro' as const,
    messageVersion: typeof raw.messageVersion === 'string' ? raw.messageVersion : '2.2.0',
    threeDSServerTransID: typeof raw.threeDSServerTransID === 'string' ? raw.threeDSServerTransID : '',
    errorComponent: 'S' as const,
    errorMessageType: 'RReq',
    ...(typeof raw.acsTransID === 'string' && { acsTransID: raw.acsTransID }),
    ...(typeof raw.dsTransID === 'string' && { dsTransID: raw.dsTransID }),
  };
  if (problems === 'UNKNOWN_TRANSACTION') {
    return {
      ...base,
      errorCode: '301',
      errorDescription: 'Transaction ID not recognized',
      errorDetail: 'threeDSServerTransID',
    };
  }
  const errorCode = problems.some((p) => p.errorCode === '201') ? '201' : '203';
  return {
    ...base,
    errorCode,
    errorDescription: errorCode === '201' ? 'Required data element missing' : 'Invalid data element',
    errorDetail: [...new Set(problems.map((p) => p.field))].join(','),
  };
}

/**
 * The end of a 3-D Secure authentication that happened outside Kassa's request: the RReq from the DS (EMVCo results
 * endpoint, threeDSServerURL) after a challenge or a decoupled authentication, and the sweep that ends those that
 * never got one.
 */
import { deleteInBatches } from '../ports/batched-delete.js';
import type { Clock } from '../ports/clock.js';
import { isUuid } from '../ports/id-generator.js';
import type { Store } from '../ports/store.js';
import { checkRReq, resultsResponse, rreqError } from '../threeds/results-request.js';
import type { ResultsRequest, ResultsResponse, ThreeDSErrorMessage } from '../threeds/three-ds-messages.js';
import type { ThreeDSPhase } from '../threeds/three-ds-transaction.js';
import { authorizeAtAcquirer, decideAfterAuthentication } from './authorize-payment.js';
import { finishPayment } from './finish-payment.js';
import type { Payment, ThreeDSResult } from './payment.js';
import { payIdFromUuid, uuidFromPayId } from './payment.js';
import type { PaymentServiceDeps } from './payment-deps.js';

/** Phases in which an RReq is expected. */
const RESULT_PHASES: readonly ThreeDSPhase[] = ['CHALLENGE', 'APP_CHALLENGE', 'DECOUPLED'];

/**
 * The 3-D Secure results endpoint (EMVCo threeDSServerURL): takes the final result of a challenge or decoupled
 * authentication from the RReq — never from the browser's CRes — stores it on the payment, then authorizes (Y, A,
 * U) or fails the payment (N → 20010001, or 20010003 for reason 26 "not performed": a cancelled challenge;
 * R → 20010002), queuing the payment.* event in the transaction of the state change, and deletes the vaulted card.
 * A repeated RReq for a transaction already finished is acknowledged again without acting twice.
 * @returns the RRes (resultsStatus 01), or an EMVCo Erro: 301 for an unknown transaction, 201/203 for an invalid
 * RReq. Never throws for a bad RReq; throws only when storage fails.
 */
export async function handleResultsRequest(
  deps: PaymentServiceDeps,
  rreq: ResultsRequest,
): Promise<ResultsResponse | ThreeDSErrorMessage> {
  const { store, clock } = deps;
  const serverTransID = (rreq as unknown as Record<string, unknown>).threeDSServerTransID;
  if (!isUuid(serverTransID)) return rreqError(rreq, 'UNKNOWN_TRANSACTION');
  const payId = payIdFromUuid(serverTransID);
  const t = await store.threeDSTransactions.find(payId);
  if (t === undefined || t.acsTransID === undefined || t.messageVersion === undefined) {
    return rreqError(rreq, 'UNKNOWN_TRANSACTION');
  }
  const problems = checkRReq(rreq, {
    threeDSServerTransID: uuidFromPayId(payId),
    acsTransID: t.acsTransID,
    dsTransID: t.dsTransID,
    messageVersion: t.messageVersion,
  });
  if (problems.length > 0) return rreqError(rreq, problems);
  // A repeated RReq (the DS retries until it gets an RRes) is acknowledged again without acting twice.
  if (t.phase === 'DONE') return resultsResponse(rreq);
  if (!RESULT_PHASES.includes(t.phase)) return rreqError(rreq, 'UNKNOWN_TRANSACTION');
  if (!(await store.threeDSTransactions.claimPhase(payId, t.phase, 'DONE', clock.now()))) return resultsResponse(rreq);
  const [merchant, stored] = await Promise.all([
    store.merchants.find(t.merchantId),
    store.payments.findByPayId(t.merchantId, payId),
  ]);
  if (merchant === undefined || stored === undefined || stored.status !== 'PENDING') {
    await deps.cardVault.delete(payId);
    return resultsResponse(rreq);
  }
  const previous = stored.threeDS;
  const threeDS: ThreeDSResult = {
    // What only the ARes says (acsChallengeMandated, reference numbers, …) stays; the RReq's result replaces the rest.
    ...(previous && aresOnly(previous)),
    threeDSServerTransID: uuidFromPayId(payId),
    messageVersion: t.messageVersion,
    transStatus: rreq.transStatus,
    acsTransID: rreq.acsTransID,
    dsTransID: rreq.dsTransID,
    liabilityShift: rreq.transStatus === 'Y' || rreq.transStatus === 'A',
    ...(rreq.transStatusReason !== undefined && { transStatusReason: rreq.transStatusReason }),
    ...(rreq.eci !== undefined && { eci: rreq.eci }),
    ...(rreq.authenticationValue !== undefined && { authenticationValue: rreq.authenticationValue }),
    ...(rreq.authenticationType !== undefined && { authenticationType: rreq.authenticationType }),
    ...(rreq.whiteListStatus !== undefined && { whiteListStatus: rreq.whiteListStatus }),
    ...(rreq.whiteListStatusSource !== undefined && { whiteListStatusSource: rreq.whiteListStatusSource }),
    messageType: 'RReq',
  };
  const payment: Payment = {
    ...stored,
    threeDS: previous === undefined ? threeDS : { ...threeDS, messageVersion: previous.messageVersion },
    responseCode: '60000001',
    updatedAt: clock.now(),
  };
  const decision = decideAfterAuthentication(rreq.transStatus, rreq.transStatusReason);
  if (decision.next === 'FAIL') {
    await finishPayment(deps, merchant, payment, decision.responseCode);
    return resultsResponse(rreq);
  }
  const card = await deps.cardVault.read(payId, clock.now());
  if (card === undefined) {
    // The vaulted card expired or the data key changed: the payment cannot be authorized any more.
    await finishPayment(deps, merchant, payment, '20010006');
    return resultsResponse(rreq);
  }
  await store.payments.update(payment);
  await authorizeAtAcquirer(deps, merchant, payment, card);
  return resultsResponse(rreq);
}

/**
 * The fields of a stored 3-D Secure result that came from the ARes and that the RReq does not replace: the ARes-only
 * ones (acsChallengeMandated, reference numbers, …), and authenticationType and the whitelist status, which an RReq
 * that carries them overrides (its values are spread after these).
 */
function aresOnly(previous: ThreeDSResult): Partial<ThreeDSResult> {
  const { acsChallengeMandated, acsDecConInd, acsOperatorID, acsReferenceNumber, dsReferenceNumber, sdkTransID } =
    previous;
  const { cardholderInfo, authenticationType, whiteListStatus, whiteListStatusSource } = previous;
  return Object.fromEntries(
    Object.entries({
      acsChallengeMandated,
      acsDecConInd,
      acsOperatorID,
      acsReferenceNumber,
      dsReferenceNumber,
      sdkTransID,
      cardholderInfo,
      authenticationType,
      whiteListStatus,
      whiteListStatusSource,
    }).filter(([, v]) => v !== undefined),
  );
}

/**
 * Ends payments whose 3-D Secure waited longer than their link's lifetime (cardholder gone, no RReq): FAILED
 * 20010006 with payment.failed, card deleted; then deletes every expired vaulted card. Safe to run on every node:
 * each transaction is claimed (phase compare-and-set) before its payment is touched.
 * @returns how many payments it ended.
 */
export async function expireAbandonedAuthentications(deps: PaymentServiceDeps, limit = 100): Promise<number> {
  const { store, clock } = deps;
  const now = clock.now();
  let ended = 0;
  for (const t of await store.threeDSTransactions.findExpired(now, limit)) {
    if (!(await store.threeDSTransactions.claimPhase(t.payId, t.phase, 'DONE', now))) continue;
    const [merchant, payment] = await Promise.all([
      store.merchants.find(t.merchantId),
      store.payments.findByPayId(t.merchantId, t.payId),
    ]);
    if (merchant !== undefined && payment?.status === 'PENDING') {
      await finishPayment(deps, merchant, payment, '20010006'); // its card goes in the same transaction
      ended++;
    } else await deps.cardVault.delete(t.payId);
  }
  await deps.cardVault.deleteExpired(now);
  return ended;
}

/** How long a finished authentication's 3-D Secure state is kept after its redirect link expired: 1 day, ms. */
export const THREE_DS_STATE_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Rows pruneFinishedAuthentications deletes per transaction (short ones: payments never wait long). */
export const THREE_DS_PRUNE_BATCH = 500;

/**
 * Keeps `three_ds_transaction` bounded (issue 12: cost stays flat as the data grows; without it every browser and
 * hosted payment left its row for good): deletes the state of authentications in phase DONE whose redirect link
 * expired more than THREE_DS_STATE_RETENTION_MS ago, in batches of `batch` until none is left. The payment keeps its
 * 3-D Secure result (`threeDS` on the payment); what goes is the flow's working state (CReq, ACS URL, link nonce,
 * the merchant's browser data). Past that point a link or CRes for the payment was refused already (expired), and a
 * DS still repeating its RReq a day later gets Erro 301 (unknown transaction) instead of a second RRes. Safe on every
 * node. @returns how many rows it deleted. @throws when storage fails.
 */
export async function pruneFinishedAuthentications(
  deps: { store: Pick<Store, 'threeDSTransactions'>; clock: Clock },
  batch = THREE_DS_PRUNE_BATCH,
): Promise<number> {
  const expiredBefore = new Date(deps.clock.now().getTime() - THREE_DS_STATE_RETENTION_MS);
  return deleteInBatches((limit) => deps.store.threeDSTransactions.pruneDone(expiredBefore, limit), batch);
}

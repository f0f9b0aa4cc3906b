/** Claims checked against behaviour: what a tool did during its calls, set against what it says (see claims-room.ts). */
export { ClaimsRoom, type CallObserver, type ClaimsRoomDeps } from './claims-room';
export { claimsCheckView, claimsFactsOf, claimsToReview, claimCheckOf, evidenceWords, usableAnnotations } from './claim-state';
export { compareClaims, statedClaims, type Contradiction, type Effect } from './compare-claims';
export { GRANT_USE_FILE, UNUSED_AFTER_MS } from './grant-use';

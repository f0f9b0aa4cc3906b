/**
 * The words for a finished sign-out, apart from the contract (shared/ipc.ts)
 * so that a command can say them without building every channel's schema.
 */

/** What a person is told once a sign-in ended: what happened here, what the server did, and what is left to do. */
export function signOutWords(outcome: { revoked: 'yes' | 'not-offered' | 'failed'; detail?: string | undefined }): string {
  if (outcome.revoked === 'yes') return 'The server revoked the sign-in, and its tokens were deleted here.';
  const left = "they may work there until they expire: to end that, remove Airlock's access in your account at the service";
  if (outcome.revoked === 'not-offered') return `The tokens were deleted here. The server offers no way to revoke them, so ${left}.`;
  return `The tokens were deleted here, but revoking them at the server failed (${outcome.detail ?? 'no reason given'}), so ${left}.`;
}

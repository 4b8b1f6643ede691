import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the operator's console (gathered in shared/composition/error-catalog.ts, docs/console.md). Its pages answer them as HTML. */
export const consoleErrors: Readonly<Record<string, ErrorEntry & { area: 'console' }>> = {
  console_sign_in_invalid: {
    status: 401,
    area: 'console',
    meaning: 'The key given to the console sign-in is not a live workspace API key (`wak_…`).',
    action: 'Sign in with a workspace API key the operator minted (`admin apikey:create`), not a budget key or token.',
  },
  console_sign_in_required: {
    status: 401,
    area: 'console',
    meaning: 'The console page needs a session: none was sent, it expired, was signed out, or its API key was revoked.',
    action: 'Sign in again at /console/sign-in.',
  },
  console_form_refused: {
    status: 403,
    area: 'console',
    meaning:
      "The form post did not carry the session's form token (a forged cross-site post, or a page from an earlier session).",
    action: 'Reload the page and submit the form again.',
  },
};

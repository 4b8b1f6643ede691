import type { ErrorEntry } from '../platform/errors/catalog-entry';

/** Error codes of the operator's console (gathered in shared/composition/error-catalog.ts, docs/console.md). Its pages answer them as HTML. */
export const consoleErrors: Readonly<Record<string, ErrorEntry & { area: 'console' }>> = {
  console_sign_in_invalid: {
    status: 401,
    area: 'console',
    meaning:
      'The key given to the console sign-in is not a live workspace API key (`wak_…`) or service operator key (`opk_…`).',
    action:
      'Sign in with a workspace API key (`admin apikey:create`) or an operator key (`admin operator-key:create`), not a budget key or token.',
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
  console_operator_required: {
    status: 403,
    area: 'console',
    meaning:
      "A workspace's console session asked for a service operator's page (the catalog, settlements or a wallet's ledger).",
    action: 'Sign out and sign in with an operator key (`admin operator-key:create`).',
  },
  console_workspace_required: {
    status: 403,
    area: 'console',
    meaning: "A service operator's console session asked for a workspace's page: an operator session is no workspace.",
    action: "Sign out and sign in with the workspace's API key (`admin apikey:create`).",
  },
};

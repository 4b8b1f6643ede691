/**
 * The current time inside workflow code. In Temporal's workflow sandbox `Date` is the time of the
 * workflow task being processed, recorded in history, so this is deterministic on replay. It is
 * the one sanctioned clock read: the lint rule refuses `Date.now()` and `new Date()` in workflow
 * files so that every other read stays visible here.
 */
export function workflowNow(): number {
  return Date.now();
}

/** One lease workflow per claim; the claim id is `<schedule>:<occurrence>:<attempt>`. */
export function leaseWorkflowId(claimId: string): string {
  return `schedule-lease:${claimId}`;
}

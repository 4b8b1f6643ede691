/** The verification workflow's id is the completion id (a business id; one verification per completion). */
export function verificationWorkflowId(completionId: string): string {
  return completionId;
}

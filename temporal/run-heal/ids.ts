export function runHealWorkflowId(tag: string): string {
  return `webhook-run-heal:${tag}`;
}

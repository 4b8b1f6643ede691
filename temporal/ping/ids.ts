export function pingWorkflowId(tag: string): string {
  return `ping:${tag}`;
}

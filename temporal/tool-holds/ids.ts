export function holdHealWorkflowId(tag: string): string {
  return `tool-hold-heal:${tag}`;
}

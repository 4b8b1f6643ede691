/** The reservation timer's workflow id is the reservation id (reservations made before the sweep). */
export function reservationWorkflowId(reservationId: string): string {
  return reservationId;
}

/** The expiry sweep's id: one per deployment (`prefix` separates test files sharing a server). */
export function reservationSweepWorkflowId(prefix: string): string {
  return `${prefix}job-reservation-sweep`;
}

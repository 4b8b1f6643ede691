/** The reservation timer's workflow id is the reservation id. */
export function reservationWorkflowId(reservationId: string): string {
  return reservationId;
}

export default async function globalTeardown(): Promise<void> {
  const stops = (globalThis as { __stackStops?: Array<() => Promise<void>> }).__stackStops ?? [];
  await Promise.allSettled(stops.map((stop) => stop()));
}

// How long to wait before reopening a status stream: exponential with full jitter (a random wait from zero to the
// step, so pages dropped together do not come back together), capped, and reset after a stream that worked (it
// delivered and stayed open `healthyAfterMs`), so a proxy that accepts and drops at once is not called in a loop.

export interface Backoff {
  initialMs: number;
  maximumMs: number;
  healthyAfterMs: number;
}

export const defaultBackoff: Backoff = { initialMs: 1000, maximumMs: 60_000, healthyAfterMs: 10_000 };

/** The step before reconnect number `attempt` (0 for the first): `initialMs * 2^attempt`, at most `maximumMs`. */
export function backoffStep(backoff: Backoff, attempt: number): number {
  return Math.min(backoff.maximumMs, backoff.initialMs * 2 ** Math.min(Math.max(0, attempt), 30));
}

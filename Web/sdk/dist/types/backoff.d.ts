export interface Backoff {
    initialMs: number;
    maximumMs: number;
    healthyAfterMs: number;
}
export declare const defaultBackoff: Backoff;
/** The step before reconnect number `attempt` (0 for the first): `initialMs * 2^attempt`, at most `maximumMs`. */
export declare function backoffStep(backoff: Backoff, attempt: number): number;

/** SubtleCrypto, or null where there is none (an http page): then no signed status can be verified. */
export declare function subtleCrypto(): Promise<SubtleCrypto | null>;

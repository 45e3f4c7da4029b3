import { StatusSnapshot } from "./status.js";
/** The part of the Web Storage API the SDK uses: `localStorage`, or any stand-in (tests, private modes). */
export interface KeyValueStorage {
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
    removeItem(key: string): void;
}
/** For pages without localStorage (some private modes throw on it): forgets everything on reload. */
export declare class MemoryStorage implements KeyValueStorage {
    private readonly values;
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
    removeItem(key: string): void;
}
export declare class StatusCache {
    private readonly storage;
    readonly identityKey: string;
    private readonly prefix;
    constructor(storage: KeyValueStorage, publicKey: string);
    loadAppUserId(): string | null;
    saveAppUserId(appUserId: string): void;
    statusKey(appUserId: string): string;
    loadStatus(appUserId: string): StatusSnapshot | null;
    /** The signed status kept for `appUserId` (a compact JWS, unverified: the caller verifies it). */
    loadSignedStatus(appUserId: string): string | null;
    saveSignedStatus(appUserId: string, jws: string): void;
    saveStatus(snapshot: StatusSnapshot): void;
    removeStatus(appUserId: string): void;
    private read;
    private write;
}

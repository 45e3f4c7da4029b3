// The SDK's memory between page loads: who it speaks for and each user's last status, in localStorage (shared by
// the site's tabs), under keys of the tenant's public key so two tenants on one site never mix. With `statusKeys` a
// status is kept in its signed form (the server's JWS) and verified again when read: storage anyone can edit is
// then no way to unlock anything. User tokens are never kept.

import { decodeSnapshot, encodeSnapshot, StatusSnapshot } from "./status.js";

/** The part of the Web Storage API the SDK uses: `localStorage`, or any stand-in (tests, private modes). */
export interface KeyValueStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** For pages without localStorage (some private modes throw on it): forgets everything on reload. */
export class MemoryStorage implements KeyValueStorage {
  private readonly values = new Map<string, string>();
  getItem(key: string): string | null { return this.values.get(key) ?? null; }
  setItem(key: string, value: string): void { this.values.set(key, value); }
  removeItem(key: string): void { this.values.delete(key); }
}

export class StatusCache {
  readonly identityKey: string;
  private readonly prefix: string;

  constructor(private readonly storage: KeyValueStorage, publicKey: string) {
    this.prefix = `entitlements/${publicKey}/`;
    this.identityKey = this.prefix + "app-user-id";
  }

  loadAppUserId(): string | null {
    return this.read(this.identityKey);
  }

  saveAppUserId(appUserId: string): void {
    this.write(this.identityKey, appUserId);
  }

  statusKey(appUserId: string): string {
    return this.prefix + "status/" + appUserId;
  }

  loadStatus(appUserId: string): StatusSnapshot | null {
    const snapshot = decodeSnapshot(this.read(this.statusKey(appUserId)));
    return snapshot?.appUserId === appUserId ? snapshot : null;
  }

  /** The signed status kept for `appUserId` (a compact JWS, unverified: the caller verifies it). */
  loadSignedStatus(appUserId: string): string | null {
    return this.read(this.statusKey(appUserId));
  }

  saveSignedStatus(appUserId: string, jws: string): void {
    this.write(this.statusKey(appUserId), jws);
  }

  saveStatus(snapshot: StatusSnapshot): void {
    this.write(this.statusKey(snapshot.appUserId), encodeSnapshot(snapshot));
  }

  removeStatus(appUserId: string): void {
    try {
      this.storage.removeItem(this.statusKey(appUserId));
    } catch {
      // A storage that refuses leaves the old value, which the next answer replaces.
    }
  }

  // A full or disabled storage must not break the page: the SDK then works from memory.
  private read(key: string): string | null {
    try {
      return this.storage.getItem(key);
    } catch {
      return null;
    }
  }

  private write(key: string, value: string): void {
    try {
      this.storage.setItem(key, value);
    } catch {
      // See read().
    }
  }
}

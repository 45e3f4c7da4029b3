/** The bytes `text` encodes, or null when it is not unpadded base64url. */
export declare function decodeBase64URL(text: string): Uint8Array | null;

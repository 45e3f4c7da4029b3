// base64url without padding (RFC 4648 §5), as the parts of a JWS are written (RFC 7515 §2).

/** The bytes `text` encodes, or null when it is not unpadded base64url. */
export function decodeBase64URL(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

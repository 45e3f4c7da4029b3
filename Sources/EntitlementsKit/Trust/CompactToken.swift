import Encodings

/// A compact JWS (`header.payload.signature`, each base64url) taken apart: what the SDK reads of a signed status and
/// of a user token. Nothing here verifies anything.
struct CompactToken {
    let header: JSONValue
    /// The payload's JSON, as decoded bytes.
    let payload: [UInt8]
    let signature: [UInt8]
    /// `header.payload` as received: what the signature covers.
    let signingInput: [UInt8]

    /// nil when `token` is not three base64url parts with a JSON header.
    init?(_ token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64.decode(parts[0], alphabet: .url, padding: .forbidden),
            let payload = Base64.decode(parts[1], alphabet: .url, padding: .forbidden),
            let signature = Base64.decode(parts[2], alphabet: .url, padding: .forbidden),
            let header = try? JSONReader.read(JSONValue.self, from: headerBytes)
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
        signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
    }

    /// The payload as JSON; nil when it is not.
    var claims: JSONValue? { try? JSONReader.read(JSONValue.self, from: payload) }
}

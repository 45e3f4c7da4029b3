import Encodings

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A JWS in compact serialization, `header.payload.signature`, split and decoded but not verified.
///
/// Exactly three base64url parts (no padding, no other characters); the header must be a JSON object whose `alg` is a
/// string and whose `x5c`, when present, is an array of strings. The signing input is kept byte for byte as received.
public struct CompactJWS: Sendable, Hashable {
    public struct Header: Sendable, Hashable {
        public var alg: String?
        /// Standard-base64 DER certificates, leaf first; nil when the header has no `x5c`.
        public var x5c: [String]?
        public var kid: String?
        public var typ: String?
        /// Whether the header has `crit`: extensions its reader must understand (RFC 7515 §4.1.11), none of which
        /// this one does.
        public var hasCritical = false
    }

    public var header: Header
    /// The decoded header JSON.
    public var headerJSON: [UInt8]
    /// The decoded payload (JSON for everything Apple and Google sign).
    public var payload: [UInt8]
    /// The decoded signature; 64 bytes (raw r||s) for ES256, the key's modulus length for RS256.
    public var signature: [UInt8]
    /// `header.payload` exactly as received: what the signature covers.
    public var signingInput: [UInt8]

    public init(_ token: some StringProtocol) throws(JOSEError) {
        // Split on bytes: splitting a String on a Character walks grapheme clusters and costs more than the signature
        // verification this token is headed for.
        let bytes = Array(token.utf8)
        let parts = Self.parts(of: bytes)
        guard parts.count == 3 else {
            throw .malformedToken(
                "a compact JWS has 3 dot-separated parts (header.payload.signature); this one has \(parts.count)")
        }
        let names = ["header", "payload", "signature"]
        var decoded: [[UInt8]] = []
        for (part, name) in zip(parts, names) {
            // An empty signature is well-formed (`alg: none` tokens have one); the algorithm check rejects it.
            guard !part.isEmpty || name == "signature" else {
                throw .malformedToken("the JWS \(name) is empty")
            }
            guard let value = Base64.decode(utf8: part, alphabet: .url, padding: .forbidden) else {
                throw .malformedToken("the JWS \(name) is not base64url (A-Z a-z 0-9 - _, no padding)")
            }
            decoded.append(value)
        }
        headerJSON = decoded[0]
        payload = decoded[1]
        signature = decoded[2]
        signingInput = Array(bytes[..<parts[1].endIndex])
        do throws(JSONReadError) {
            header = try JSONReader.read(headerJSON) { reader throws(JSONReadError) in try Header(json: &reader) }
        } catch {
            throw .malformedToken(
                "the JWS header is not a JSON object with string `alg` and string-array `x5c`: \(error)")
        }
        guard !header.hasCritical else {
            throw .malformedToken("the JWS header lists critical extensions (crit) that are not understood here")
        }
    }

    /// `bytes` split at every dot, found with `memchr` (App Store tokens run to 16 KB; a byte loop showed in profiles).
    private static func parts(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var start = 0
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            while let dot = memchr(base + start, Int32(UInt8(ascii: ".")), buffer.count - start) {
                let index = base.distance(to: dot.assumingMemoryBound(to: UInt8.self))
                parts.append(bytes[start..<index])
                start = index + 1
            }
        }
        parts.append(bytes[start...])
        return parts
    }
}

extension CompactJWS.Header {
    /// Reads the header object; members other than these five are skipped.
    init(json reader: inout JSONReader) throws(JSONReadError) {
        var header = Self()
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "alg" {
                header.alg = try reader.optionalString()
            } else if key == "x5c" {
                header.x5c = try reader.optionalStrings()
            } else if key == "kid" {
                header.kid = try reader.optionalString()
            } else if key == "typ" {
                header.typ = try reader.optionalString()
            } else if key == "crit" {
                header.hasCritical = true
                try reader.skipValue()
            } else {
                try reader.skipValue()
            }
        }
        self = header
    }
}

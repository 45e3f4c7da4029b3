import Encodings

/// The registered claims of a JWT (RFC 7519 §4.1) read from a verified JWS payload; other claims are skipped.
///
/// Only the shapes are checked here (strings, NumericDates as whole seconds since the epoch within
/// ``NumericDate/maximum``, `aud` a string or an array of strings); what the values must be is the verifier's to say.
public struct JSONWebTokenClaims: Sendable, Hashable {
    public var issuer: String?
    public var subject: String?
    /// `aud`: a single string reads as a one-element list (§4.1.3).
    public var audience: [String] = []
    /// Seconds since the epoch; a fraction is dropped.
    public var expiresAt: Int64?
    public var notBefore: Int64?
    public var issuedAt: Int64?
    public var tokenID: String?

    /// The latest NumericDate read (9999-12-31T23:59:59Z): a bound that keeps every later sum in range.
    public static let maximumNumericDate: Int64 = 253_402_300_799

    public init() {}

    /// Reads the payload (UTF-8 JSON, an object); `.malformedToken` naming the claim when one has the wrong type.
    public init(payload: [UInt8]) throws(JOSEError) {
        do {
            self = try JSONReader.read(payload) { reader throws(JSONReadError) in try Self(json: &reader) }
        } catch {
            throw .malformedToken("the JWT claims are not a JSON object of registered claims of their types: \(error)")
        }
    }

    private init(json reader: inout JSONReader) throws(JSONReadError) {
        var claims = Self()
        try reader.readObject { reader, key throws(JSONReadError) in
            if key == "iss" {
                claims.issuer = try reader.optionalString()
            } else if key == "sub" {
                claims.subject = try reader.optionalString()
            } else if key == "aud" {
                claims.audience = try reader.readOptional { reader throws(JSONReadError) in
                    try reader.readOneOrMoreStrings()
                } ?? []
            } else if key == "exp" {
                claims.expiresAt = try Self.numericDate(&reader)
            } else if key == "nbf" {
                claims.notBefore = try Self.numericDate(&reader)
            } else if key == "iat" {
                claims.issuedAt = try Self.numericDate(&reader)
            } else if key == "jti" {
                claims.tokenID = try reader.optionalString()
            } else {
                try reader.skipValue()
            }
        }
        self = claims
    }

    private static func numericDate(_ reader: inout JSONReader) throws(JSONReadError) -> Int64? {
        guard let seconds = try reader.readOptional({ reader throws(JSONReadError) in
            try reader.readInt64(truncatingFraction: true)
        }) else { return nil }
        guard (0...maximumNumericDate).contains(seconds) else {
            throw JSONReadError(problem: "\(seconds) is not a NumericDate between 1970 and 9999")
        }
        return seconds
    }
}

import Foundation
import JOSE

/// A JSON payload Apple signs as a JWS: transaction, renewal info, notification or app transaction.
///
/// Payloads (and JWS headers, and notification bodies) are decoded with Foundation's JSON, not with the tenants file's
/// parser (EntitlementDomain/Tenants/JSONDocument.swift): Apple's data is machine-written, one line, and read the way
/// Apple's own libraries read it (lenient about fields it adds, keys in any order); the tenants file is written by
/// people, so its parser is strict (duplicate keys are errors) and its errors name the line.
public protocol SignedPayload: Decodable, Sendable {
    /// "transaction", "renewal info", ... for messages.
    static var payloadName: String { get }
    /// The date certificate validity is checked at, in ms: `signedDate` (`receiptCreationDate` for app transactions).
    var effectiveDate: Int64? { get }
    /// The environment the payload claims, raw, before any verification (used to recognise Xcode-signed data).
    var claimedEnvironment: String? { get }
}

extension SignedPayload {
    /// Decodes a payload without verifying anything (for data already verified, or stored).
    public init(jsonPayload: [UInt8]) throws(AppStoreVerificationError) {
        do {
            self = try JSONDecoder().decode(Self.self, from: Data(jsonPayload))
        } catch let error as DecodingError {
            throw AppStoreVerificationError(
                .malformedToken, "the \(Self.payloadName) payload is not valid: \(error.pathAndProblem)")
        } catch {
            throw AppStoreVerificationError(.malformedToken, "the \(Self.payloadName) payload is not valid: \(error)")
        }
    }
}

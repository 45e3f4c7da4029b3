import Foundation

/// A JSON payload Apple signs as a JWS: transaction, renewal info, notification or app transaction.
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
                .malformedToken, "the \(Self.payloadName) payload is not valid: \(describe(error))")
        } catch {
            throw AppStoreVerificationError(.malformedToken, "the \(Self.payloadName) payload is not valid: \(error)")
        }
    }
}

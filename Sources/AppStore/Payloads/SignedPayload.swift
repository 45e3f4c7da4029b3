public import Encodings

/// A JSON payload Apple signs as a JWS: transaction, renewal info, notification or app transaction.
///
/// Payloads are read by hand-written readers over ``JSONReader`` (a notification is three of them, on the ingestion
/// hot path), leniently as Apple's own libraries read them: members added later are skipped, keys come in any order.
/// The tenants file has its own parser (TenantConfiguration/JSONDocument.swift): it is written by people, so it
/// is strict (duplicate keys are errors) and its errors name the line.
public protocol SignedPayload: Sendable {
    /// "transaction", "renewal info", ... for messages.
    static var payloadName: String { get }
    /// Reads the payload's JSON object.
    init(json reader: inout JSONReader) throws(JSONReadError)
    /// The date certificate validity is checked at, in ms: `signedDate` (`receiptCreationDate` for app transactions).
    var effectiveDate: Int64? { get }
    /// The environment the payload claims, raw, before any verification (used to recognise Xcode-signed data).
    var claimedEnvironment: String? { get }
}

extension SignedPayload {
    /// Decodes a payload without verifying anything (for data already verified, or stored).
    public init(jsonPayload: [UInt8]) throws(AppStoreVerificationError) {
        do {
            self = try JSONReader.read(jsonPayload) { reader throws(JSONReadError) in try Self(json: &reader) }
        } catch {
            throw AppStoreVerificationError(.malformedToken, "the \(Self.payloadName) payload is not valid: \(error)")
        }
    }
}

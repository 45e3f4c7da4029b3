import CivilCalendar
import Crypto
import Testing

/// Apple's marker OIDs: on the receipt/transaction-signing leaf and on the WWDR intermediate.
let appleLeafMarker = "1.2.840.113635.100.6.11.1"
let appleIntermediateMarker = "1.2.840.113635.100.6.2.1"
let asn1Null: [UInt8] = [0x05, 0x00]

/// An Apple-shaped root → intermediate → leaf chain minted at test time, with nested validity windows:
/// root [t0, t0+1000d], intermediate [t0+1d, t0+900d], leaf [t0+10d, t0+400d].
struct TestChain {
    static let day = Seconds.perDay
    static let t0: Int64 = 1_700_000_000

    let rootKey: P256.PrivateKey
    let intermediateKey: P256.PrivateKey
    let leafKey: P256.PrivateKey
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate

    /// A time at which every certificate is valid.
    static let inside = t0 + 100 * day

    init(rootName: String = "Test Root CA") throws {
        rootKey = try P256.PrivateKey()
        intermediateKey = try P256.PrivateKey()
        leafKey = try P256.PrivateKey()
        root = try CertificateIssuer.issue(
            commonName: rootName, organization: "Test Org", subjectPublicKey: rootKey.publicKey, serialNumber: 1,
            notValidBefore: Self.t0, notValidAfter: Self.t0 + 1000 * Self.day, isCertificateAuthority: true,
            issuer: nil, issuerKey: rootKey)
        intermediate = try CertificateIssuer.issue(
            commonName: "Test Intermediate CA", subjectPublicKey: intermediateKey.publicKey, serialNumber: 2,
            notValidBefore: Self.t0 + Self.day, notValidAfter: Self.t0 + 900 * Self.day, isCertificateAuthority: true,
            pathLength: 0, extensions: [.init(oid: appleIntermediateMarker, critical: false, derValue: asn1Null)],
            issuer: root, issuerKey: rootKey)
        leaf = try CertificateIssuer.issue(
            commonName: "Test Signing Leaf", subjectPublicKey: leafKey.publicKey, serialNumber: 3,
            notValidBefore: Self.t0 + 10 * Self.day, notValidAfter: Self.t0 + 400 * Self.day,
            isCertificateAuthority: false, extensions: [.init(oid: appleLeafMarker, critical: false, derValue: asn1Null)],
            issuer: intermediate, issuerKey: intermediateKey)
    }
}

/// The code of the `CryptoError` thrown by `body`, or nil when it does not throw.
func errorCode(_ body: () throws -> Void) -> CryptoError.Code? {
    thrownError(body)?.code
}

/// The `CryptoError` thrown by `body`, or nil when it does not throw; any other error fails the test.
func thrownError(_ body: () throws -> Void) -> CryptoError? {
    do {
        try body()
        return nil
    } catch let error as CryptoError {
        return error
    } catch {
        Issue.record("expected a CryptoError, got \(error)")
        return CryptoError(code: .internalError, message: "\(error)")
    }
}

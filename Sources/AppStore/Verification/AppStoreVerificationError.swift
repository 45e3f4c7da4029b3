/// Why App Store signed data was rejected: a stable ``Code`` to branch on (and map to gRPC/HTTP) and a message naming
/// the check that failed, with the expected and received values where there are any.
public struct AppStoreVerificationError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// Not a compact JWS, or its header or payload is not the JSON it must be.
        case malformedToken
        /// Header `alg` is not `ES256` (`none`, `HS256`, `ES384`, missing, ...).
        case unsupportedAlgorithm
        /// `x5c` is missing or does not hold exactly three certificates.
        case invalidChainLength
        /// An `x5c` entry is not base64 DER, or the leaf has no P-256 key.
        case invalidCertificate
        /// Leaf and intermediate do not chain to a configured root.
        case chainNotTrusted
        /// A certificate of the chain is not valid at the payload's `signedDate`.
        case certificateExpired
        /// The leaf lacks OID 1.2.840.113635.100.6.11.1 or the intermediate lacks 1.2.840.113635.100.6.2.1.
        case missingAppleOID
        /// The ES256 signature does not verify with the leaf's key.
        case invalidSignature
        case wrongBundleID
        case wrongAppAppleID
        /// The payload's environment is not the one this verifier accepts.
        case wrongEnvironment
        /// Signed by Xcode's local StoreKit configuration: can never pass server verification.
        case xcodeSigned
        /// The verifier itself is set up wrongly (no trusted roots, production without `appAppleID`).
        case invalidConfiguration
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// What a developer must do when their server receives data from Xcode's StoreKit testing.
    public static let xcodeAdvice = """
        This was signed by Xcode's local StoreKit configuration (StoreKit Testing in Xcode), not by the App Store, \
        so it can never pass server verification. To test purchases against this server, sign in with a Sandbox \
        tester account on a real device and set the Xcode scheme's StoreKit Configuration to None.
        """
}

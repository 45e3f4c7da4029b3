import Crypto
import Encodings
public import EntitlementDomain

/// Production tenants that trust a root other than Apple's: a local development CA there would let anyone with its
/// key mint purchases. Allowed (someone may configure it by hand) but announced loudly at startup and on reload.
public enum AppStoreTrustWarnings {
    /// SHA-256 of Apple Root CA - G3's DER encoding (Config/AppleRootCA-G3.cer).
    static let appleRootCAG3SHA256 = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// One message per certificate that a Production-accepting tenant trusts and that is not Apple's root: every
    /// certificate the verifier trusts, however many a root file holds.
    public static func messages(for directory: TenantDirectory) -> [String] {
        var messages: [String] = []
        for tenant in directory.tenants {
            guard let settings = tenant.appStore, settings.environments.contains(.production) else { continue }
            for root in settings.trustedRoots where Hex.encode(SHA256.hash(root.certificate.derEncoded)) != appleRootCAG3SHA256 {
                let name = root.certificate.subjectCommonName
                messages.append(
                    "tenant '\(tenant.id)' accepts Production App Store data and trusts '\(name)' from '\(root.path)', "
                        + "which is not Apple Root CA - G3: whoever holds that CA's key can create purchases")
            }
        }
        return messages
    }
}

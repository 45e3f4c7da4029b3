import Crypto
public import EntitlementDomain
import Foundation

/// Production tenants that trust a root other than Apple's: a local development CA there would let anyone with its
/// key mint purchases. Allowed (someone may configure it by hand) but announced loudly at startup and on reload.
public enum AppStoreTrustWarnings {
    /// SHA-256 of Apple Root CA - G3's DER encoding (Config/AppleRootCA-G3.cer).
    static let appleRootCAG3SHA256 = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// One message per (tenant, root file) that a Production-accepting tenant trusts and that is not Apple's root.
    public static func messages(for directory: TenantDirectory) -> [String] {
        var messages: [String] = []
        for tenant in directory.tenants {
            guard let settings = tenant.appStore, settings.environments.contains(.production) else { continue }
            for path in settings.rootCertificatePaths {
                let bytes = FileManager.default.contents(atPath: path).map(Array.init) ?? []
                let der: [UInt8] =
                    if let text = String(bytes: bytes, encoding: .utf8), text.contains("-----BEGIN"),
                        let certificate = try? Certificate(pemEncoded: text)
                    {
                        certificate.derEncoded
                    } else {
                        bytes
                    }
                guard Hex.encode(SHA256.hash(der)) != appleRootCAG3SHA256 else { continue }
                messages.append(
                    "tenant '\(tenant.id)' accepts Production App Store data and trusts '\(path)', which is not "
                        + "Apple Root CA - G3: whoever holds that CA's key can create purchases")
            }
        }
        return messages
    }
}

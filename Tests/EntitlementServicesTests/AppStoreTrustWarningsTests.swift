import Crypto
import EntitlementDomain
import EntitlementServices
import Foundation
import TestSupport
import Testing

@Suite struct AppStoreTrustWarningsTests {
    private func directory(root: String, environments: Set<AppStoreEnvironmentName>) throws -> TenantDirectory {
        try directory(roots: [root], environments: environments)
    }

    private func directory(roots: [String], environments: Set<AppStoreEnvironmentName>) throws -> TenantDirectory {
        let settings = AppStoreSettings(
            bundleID: "com.example.app", appAppleID: environments.contains(.production) ? 1234 : nil,
            environments: environments, rootCertificatePaths: roots)
        let tenant = try Tenant(
            id: "shop", publicKeyHashes: [APIKey.hashString(APIKey.generate(.publicKey))!], appStore: settings)
        return try TenantDirectory(tenants: [tenant])
    }

    @Test func appleRootInProductionIsQuiet() throws {
        let apple = RepositoryFiles.path("Config/AppleRootCA-G3.cer")
        #expect(AppStoreTrustWarnings.messages(for: try directory(root: apple, environments: [.production])).isEmpty)
    }

    @Test func anotherRootInProductionIsAnnounced() throws {
        // Any certificate that is not Apple's root: the intermediate from the test data will do.
        let other = RepositoryFiles.path("Tests/Fixtures/apple/certs/AppleWWDRCA-G6.cer")
        let messages = AppStoreTrustWarnings.messages(for: try directory(root: other, environments: [.production]))
        #expect(messages.count == 1)
        #expect(messages.first?.contains("not Apple Root CA - G3") == true)
        #expect(AppStoreTrustWarnings.messages(for: try directory(root: other, environments: [.sandbox])).isEmpty)
    }

    /// Apple's root as PEM text, followed by `more` PEM text, in a temporary file.
    private func pemFile(appleRootFirst: Bool, then more: [String]) throws -> String {
        let apple = try Certificate(derEncoded: Array(RepositoryFiles.data("Config/AppleRootCA-G3.cer"))).pemEncoded
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("roots-\(UUID().uuidString).pem").path
        try ((appleRootFirst ? [apple] : []) + more).joined().write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aDevelopmentRootAfterApplesInOneFileIsAnnounced() throws {
        // The verifier trusts every block of a PEM file, so the warning must judge every block too.
        let devRoot = try String(contentsOfFile: RepositoryFiles.path("Config/dev-ca/root.pem"), encoding: .utf8)
        let path = try pemFile(appleRootFirst: true, then: [devRoot])
        defer { try? FileManager.default.removeItem(atPath: path) }
        let directory = try directory(root: path, environments: [.production])
        #expect(directory.tenants.first?.appStore?.trustedRoots.count == 2)
        let messages = AppStoreTrustWarnings.messages(for: directory)
        #expect(messages.count == 1)
        #expect(messages.first?.contains(path) == true)
        #expect(messages.first?.contains("Apple Root CA - G3") == true)
    }

    @Test func onlyApplesRootInPEMIsQuiet() throws {
        let path = try pemFile(appleRootFirst: true, then: [])
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(AppStoreTrustWarnings.messages(for: try directory(root: path, environments: [.production])).isEmpty)
    }

    @Test func eachForeignRootOfSeveralFilesIsAnnounced() throws {
        let apple = RepositoryFiles.path("Config/AppleRootCA-G3.cer")
        let dev = RepositoryFiles.path("Config/dev-ca/root.pem")
        let intermediate = RepositoryFiles.path("Tests/Fixtures/apple/certs/AppleWWDRCA-G6.cer")
        let messages = AppStoreTrustWarnings.messages(
            for: try directory(roots: [apple, dev, intermediate], environments: [.production]))
        #expect(messages.count == 2)
        #expect(messages.contains { $0.contains(dev) } && messages.contains { $0.contains(intermediate) })
    }

    @Test func aFileThatIsNotACertificateFailsTheTenantLoad() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("junk-\(UUID().uuidString).pem").path
        try "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: TenantRuleError.self) { try directory(root: path, environments: [.sandbox]) }
    }
}

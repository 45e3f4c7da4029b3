import AppStoreServerAPI
import EntitlementDomain
import FileAccess
import GooglePlayAPI
import HTTP2Transport
import PosixIO
import OutboundHTTP
import TenantConfiguration

/// `entitlementd check-config --config FILE`: loads everything the server loads at startup and checks what it would
/// only find out later (TLS keys that do not match their certificate, a CA file OpenSSL cannot read, Play
/// service-account keys and App Store Server API keys that do not parse), without binding a port or opening the
/// database. Every problem is reported, not just the first; warnings are what the server would warn about.
enum ConfigCheck {
    struct Report {
        var problems: [String] = []
        var warnings: [String] = []
        var tenants = 0
    }

    static func run(configPath: String) -> EntitlementdCommand.Outcome {
        let report = check(configPath: configPath)
        var output = ""
        for warning in report.warnings { output += "warning: \(warning)\n" }
        guard report.problems.isEmpty else {
            let errors = EntitlementdCommand.lines(report.problems, prefix: "entitlementd: check-config: ")
            return .exit(status: EntitlementdCommand.configErrorStatus, standardOutput: output, standardError: errors)
        }
        output += "ok: \(configPath) and its \(report.tenants) tenant(s) load as the server would load them\n"
        return .exit(status: 0, standardOutput: output, standardError: "")
    }

    static func check(configPath: String) -> Report {
        var report = Report()
        // The file's own problems, then what the keys that did read name: the files they point at, the tenants.
        let (read, fileProblems) = ServerConfig.read(path: configPath)
        report.problems = fileProblems.map(\.description)
        guard let config = read else { return report }
        if let tls = config.transport.tls {
            do throws(TransportError) { try tls.check() } catch { report.problems.append("[tls]: \(error)") }
        }
        do throws(OutboundHTTPError) {
            let client = try OutboundHTTPClient(
                configuration: .init(trustedCertificatesPath: config.outboundTrustedCertificatesPath))
            client.shutdown()
        } catch {
            report.problems.append("[outbound_http] trusted_certificates: \(error.message)")
        }
        if let directory = config.demoPageDirectory {
            do throws(FileSystemError) { _ = try StaticFiles(directory: directory) } catch {
                report.problems.append("[demo_page] directory: \(error)")
            }
        }
        if let directory = config.adminConsoleDirectory {
            do throws(FileSystemError) { _ = try AdminConsole.files(directory: directory) } catch {
                report.problems.append("[admin_console] directory: \(error)")
            }
        }
        guard let tenantsPath = config.tenantsPath else {
            if !fileProblems.contains(where: { $0.section == "storage" && $0.key == "tenants" }) {
                report.warnings.append("no [storage] tenants file configured: every entitlement call will be refused")
            }
            return report
        }
        let directory: TenantDirectory
        do {
            directory = try TenantConfigLoader.load(path: tenantsPath)
        } catch {
            report.problems.append("\(error)")
            return report
        }
        report.tenants = directory.tenants.count
        report.warnings += EntitlementServerApp.warnings(for: directory)
        for tenant in directory.tenants {
            checkKeys(of: tenant, into: &report)
        }
        return report
    }

    /// The key files the server reads on first use, read and parsed now. The example's placeholder Play key is a
    /// warning: the server runs with it, making no Google Play calls for the tenant until the real key is there.
    private static func checkKeys(of tenant: Tenant, into report: inout Report) {
        if let play = tenant.playStore {
            do throws(GooglePlayAPIError) {
                _ = try ServiceAccountKey(contentsOf: play.serviceAccountKeyPath)
            } catch {
                let finding = "tenant \"\(tenant.id)\": play_store.service_account_key_file: \(error.message)"
                if ServiceAccountKey.isPlaceholder(contentsOf: play.serviceAccountKeyPath) {
                    report.warnings.append(finding + "; Google Play calls fail until then")
                } else {
                    report.problems.append(finding)
                }
            }
        }
        if let appStore = tenant.appStore, let api = appStore.serverAPI {
            switch FileSystem.readFile(api.keyFilePath) {
            case .failure(let error):
                report.problems.append("tenant \"\(tenant.id)\": app_store.server_api key file: \(error.reason)")
            case .success(let bytes):
                do throws(AppStoreServerAPIError) {
                    _ = try AppStoreAPICredentials(
                        p8: String(decoding: bytes, as: UTF8.self), keyID: api.keyID, issuerID: api.issuerID,
                        bundleID: appStore.bundleID)
                } catch {
                    report.problems.append("tenant \"\(tenant.id)\": app_store.server_api key file: \(error.message)")
                }
            }
        }
    }
}

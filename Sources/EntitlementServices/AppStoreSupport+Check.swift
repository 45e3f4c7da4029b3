import AppStoreServerAPI
import EntitlementDomain

/// `CheckAppStoreSetup`: what an operator checks first on a new tenant, said in words.
extension AppStoreSupport {
    struct SetupCheck {
        var environment: AppStoreAPIEnvironment
        /// "key" or "notification_url".
        var name: String
        var ok: Bool
        var detail: String
    }

    /// For each environment the tenant accepts: an authenticated call (Request a Test Notification) proves the key,
    /// key ID, issuer ID and bundle ID; the test notification reaching this server within `wait` proves the URL.
    func checkSetup(tenant: Tenant, wait: Duration) async throws(DomainError) -> [SetupCheck] {
        let settings = try AppStorePurchases.settings(of: tenant)
        let environments = try AppStoreServerAPIs.environments(of: tenant, settings: settings)
        guard settings.serverAPI != nil else {
            // Said as the check's finding, like a key Apple refuses: what to add, per environment.
            let missing = AppStoreServerAPIUse.setupCheck.withoutSettings(tenantID: tenant.id)
            return environments.map { SetupCheck(environment: $0, name: "key", ok: false, detail: missing) }
        }
        var checks: [SetupCheck] = []
        for environment in environments {
            checks += await check(environment, tenant: tenant, settings: settings, wait: wait)
        }
        return checks
    }

    private func check(_ environment: AppStoreAPIEnvironment, tenant: Tenant, settings: AppStoreSettings, wait: Duration)
        async -> [SetupCheck]
    {
        let path = "/v1/apple/notifications/\(tenant.id)"
        func key(_ ok: Bool, _ detail: String) -> SetupCheck {
            SetupCheck(environment: environment, name: "key", ok: ok, detail: detail)
        }
        func url(_ ok: Bool, _ detail: String) -> SetupCheck {
            SetupCheck(environment: environment, name: "notification_url", ok: ok, detail: detail)
        }
        let token: String
        do throws(AppStoreServerAPIError) {
            let client: AppStoreServerAPIClient
            do throws(DomainError) {
                client = try testEnvironment(environment, tenant: tenant, use: .setupCheck).0
            } catch {
                return [key(false, error.message)]
            }
            token = try await client.requestTestNotification(in: environment)
        } catch where error.appleErrorCode == AppleErrorCodes.serverNotificationURLNotFound {
            return [
                key(true, "Apple accepted the key for bundle ID \(settings.bundleID)."),
                url(false, "Apple has no \(environment.rawValue) notification URL for the app: in App Store Connect (App Information, App Store Server Notifications) set it to https://<this server>\(path), Version 2."),
            ]
        } catch where error.code == .unauthorized {
            return [
                key(false, "Apple refused the token: check the .p8 key file, key ID \(settings.serverAPI?.keyID ?? "?"), issuer ID and bundle ID \(settings.bundleID)."),
            ]
        } catch {
            return [key(false, "Apple could not be asked: \(error.message)")]
        }
        var checks = [key(true, "Apple accepted the key for bundle ID \(settings.bundleID).")]
        let deadline = ContinuousClock.now.advanced(by: wait)
        var last = "Apple has not tried to send it yet"
        while true {
            do throws(DomainError) {
                let (status, received) = try await testNotificationStatus(token, in: environment, tenant: tenant)
                if received {
                    checks.append(url(true, "The TEST notification reached this server and verified."))
                    return checks
                }
                let attempts = (status.sendAttempts ?? []).compactMap(\.sendAttemptResult)
                if !attempts.isEmpty {
                    last = "Apple's attempts: \(attempts.joined(separator: ", "))"
                }
            } catch {
                last = error.message
            }
            guard ContinuousClock.now < deadline else { break }
            // A call that ended (the caller left, its deadline passed) stops asking: in a cancelled task the sleep
            // returns at once, and the loop would ask Apple without pause until `wait` is over.
            do {
                try await Task.sleep(for: .milliseconds(500))
            } catch {
                return checks
            }
        }
        checks.append(
            url(false, "The TEST notification did not reach this server within \(wait) (\(last)): Apple's \(environment.rawValue) URL for the app must end in \(path) and reach this server over HTTPS."))
        return checks
    }
}

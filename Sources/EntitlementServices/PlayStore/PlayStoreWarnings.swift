public import EntitlementDomain

/// Google Play settings that are allowed but weaken what the server promises, announced at startup and on reload.
public enum PlayStoreWarnings {
    public static func messages(for directory: TenantDirectory) -> [String] {
        var messages: [String] = []
        for tenant in directory.tenants {
            guard let settings = tenant.playStore else { continue }
            if let notifications = settings.notifications, !notifications.verifiesPushTokens {
                messages.append(
                    "tenant '\(tenant.id)' accepts Google Play notifications without verifying their push tokens "
                        + "(verify_push_tokens = false): anyone who knows the URL can make the server fetch purchases "
                        + "from Google; turn it on outside local tests")
            }
            if settings.environments.contains(.production), settings.apiBaseURL != PlayStoreSettings.defaultAPIBaseURL {
                messages.append(
                    "tenant '\(tenant.id)' accepts production Google Play purchases and asks '\(settings.apiBaseURL)' "
                        + "instead of Google's API: whoever answers there decides what is purchased")
            }
        }
        return messages
    }
}

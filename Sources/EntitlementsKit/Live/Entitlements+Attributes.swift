import EntitlementsProto

extension Entitlements {
    /// The keys with a meaning of their own; by default the only keys an app may write (the tenant's
    /// `attributes.app_keys` can allow others).
    public enum AttributeKey {
        public static let email = "$email"
        public static let displayName = "$displayName"
        public static let phoneNumber = "$phoneNumber"
        public static let locale = "$locale"
    }

    /// Sets attributes of the current user (`nil` removes a key) and returns the user's app-writable attributes
    /// after the call, by key. Never affects status. The server refuses keys the tenant does not let apps write,
    /// and values that break its limits (README, "Customer attributes"); then nothing changed.
    @discardableResult
    public func setAttributes(_ attributes: [String: String?]) async throws -> [String: String] {
        try await identifyIfNeeded()
        var request = SetAttributesRequest(appUserID: identity.appUserID)
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            if let value { request.attributes.append(Attribute(key: key, value: value)) } else { request.unsetKeys.append(key) }
        }
        let response = try await call { try await transport.setAttributes(request) }
        return Dictionary(response.attributes.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
    }
}

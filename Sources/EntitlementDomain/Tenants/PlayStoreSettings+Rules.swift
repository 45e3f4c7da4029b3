// Only for the shape of the service-account key and JWKS files: their keys are parsed by the API modules.
import Encodings
import FileAccess

extension PlayEnvironmentName: ConfiguredName {
    package static let nameKind = "Google Play environment"

    package static func note(on text: String) -> String? {
        // "sandbox" is the App Store's word for it.
        spelling(of: text)
            ?? (text.lowercased() == "sandbox" ? "license testers' purchases are \"test\" on Google Play" : nil)
    }
}

extension PlayProductType: ConfiguredName {
    package static let nameKind = "Google Play product type"

    package static func note(on text: String) -> String? {
        spelling(of: text)
            ?? (text == AppStoreProductType.autoRenewable.rawValue
                ? "auto-renewable products are \"subscription\" on Google Play" : nil)
    }
}

// MARK: Rules (errors are relative to the checked value; the tenants file reader and `validated` share them)

extension PlayStoreSettings {
    /// Android's limit on a package name (`applicationId`).
    public static let maxPackageNameLength = 255
    /// The largest service-account key or JWKS file read (a real one is a few kilobytes).
    public static let maxKeyFileBytes = 64 * 1024

    /// These settings checked as a configured `play_store` would be, with ``serviceAccountKeyPath`` and a JWKS file
    /// resolved against `directory` (made absolute). `mappedProducts` is the tenant's `products`. Error paths are
    /// relative to `play_store`.
    package func validated(mappedProducts: [String: [String]], directory: String) throws(TenantRuleError)
        -> PlayStoreSettings
    {
        var settings = self
        try TenantRuleError.at(".package_name") { () throws(TenantRuleError) in try Self.checkPackageName(packageName) }
        settings.serviceAccountKeyPath = try TenantRuleError.at(".service_account_key_file") { () throws(TenantRuleError) in
            try Self.serviceAccountKeyFile(serviceAccountKeyPath, against: directory)
        }
        try TenantRuleError.at(".environments") { () throws(TenantRuleError) in
            try Self.checkEnvironmentsListed(count: environments.count)
        }
        try TenantRuleError.at(".products") { () throws(TenantRuleError) in
            for id in products.keys.sorted() {
                try TenantRuleError.at("[\"\(id)\"]") { () throws(TenantRuleError) in
                    try Tenant.checkProductID(id)
                    try Self.checkProduct(id, type: products[id]!, mappedProducts: mappedProducts)
                }
            }
        }
        try TenantRuleError.at(".api_base_url") { () throws(TenantRuleError) in try Self.checkAPIBaseURL(apiBaseURL) }
        try TenantRuleError.at(".voided_purchases_poll_minutes") { () throws(TenantRuleError) in
            _ = try Self.checkVoidedPurchasesPollMinutes(voidedPurchasesPollMinutes, written: String(voidedPurchasesPollMinutes))
        }
        if let notifications {
            settings.notifications = try TenantRuleError.at(".notifications") { () throws(TenantRuleError) in
                try notifications.validated(directory: directory)
            }
        }
        return settings
    }

    /// An Android package name: at most 255 bytes of `[A-Za-z0-9_]` in two or more dot-separated segments, each
    /// starting with a letter.
    package static func checkPackageName(_ name: String) throws(TenantRuleError) {
        let rule = "Android package names are two or more segments of A-Z, a-z, 0-9 and _ separated by dots, each "
            + "starting with a letter, such as \"com.example.app\""
        if name.isEmpty {
            throw TenantRuleError(.invalidValue, "the package name is empty; use the app's applicationId, such as \"com.example.app\"")
        }
        if name.utf8.count > maxPackageNameLength {
            throw TenantRuleError(
                .invalidValue, "the package name is \(name.utf8.count) bytes long; the limit is \(maxPackageNameLength)")
        }
        if let scalar = name.unicodeScalars.first(where: { !isWordCharacter($0) && $0 != "." }) {
            throw TenantRuleError(.invalidValue, "the package name contains \(AppUserID.codePoint(scalar)); \(rule)")
        }
        let segments = name.split(separator: ".", omittingEmptySubsequences: false)
        if segments.count < 2 {
            throw TenantRuleError(.invalidValue, "package name \"\(name)\" has a single segment; \(rule)")
        }
        if segments.contains(where: \.isEmpty) {
            throw TenantRuleError(.invalidValue, "package name \"\(name)\" has an empty segment; \(rule)")
        }
        if let segment = segments.first(where: { !$0.unicodeScalars.first!.properties.isAlphabetic }) {
            throw TenantRuleError(
                .invalidValue, "segment \"\(segment)\" of package name \"\(name)\" does not start with a letter; \(rule)")
        }
    }

    /// `[A-Za-z0-9_]`.
    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_": true
        default: false
        }
    }

    /// The service-account key file's absolute path (`text` resolved against `directory`), once it is readable and
    /// shaped like a Google service-account JSON key. Its private key is left for the API client to parse, and no
    /// error ever quotes it.
    package static func serviceAccountKeyFile(_ text: String, against directory: String) throws(TenantRuleError)
        -> String
    {
        if text.isEmpty { throw TenantRuleError(.invalidValue, "the service-account key file path is empty") }
        let resolved = FileSystem.resolve(text, against: directory)
        let json = try keyFileJSON(resolved, what: "service-account key file")
        if let problem = serviceAccountKeyProblem(json) {
            throw TenantRuleError(
                .unreadableKeyFile,
                "\"\(resolved)\" is not a service-account key file: \(problem); use the JSON key Google Cloud makes "
                    + "for the service account that calls the Google Play Developer API (IAM & Admin → Service "
                    + "accounts → Keys → Add key → JSON)")
        }
        return resolved
    }

    /// What is wrong with a service-account key file's JSON, or nil. Never quotes `private_key`.
    static func serviceAccountKeyProblem(_ json: JSONValue) -> String? {
        guard case .object = json else { return "it is not a JSON object" }
        guard let type = json["type"] else { return "it has no \"type\"" }
        guard case .string(let typeText) = type, typeText == "service_account" else {
            // Another kind of Google credential names its kind: say which, when it looks like one.
            if case .string(let typeText) = type, typeText.utf8.count <= 40,
                typeText.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || $0 == "_" })
            {
                return "its \"type\" is \"\(typeText)\", not \"service_account\""
            }
            return "its \"type\" is not \"service_account\""
        }
        for field in ["client_email", "private_key_id", "private_key", "token_uri"] {
            guard let value = json[field] else { return "it has no \"\(field)\"" }
            guard case .string(let text) = value, !text.isEmpty else { return "its \"\(field)\" is not a non-empty string" }
            switch field {
            case "client_email" where !looksLikeEmail(text):
                return "its \"client_email\" does not look like an email address"
            case "private_key" where !isPEMPrivateKey(text):
                return "its \"private_key\" is not a PEM private key (\"-----BEGIN PRIVATE KEY-----\" … "
                    + "\"-----END PRIVATE KEY-----\")"
            case "token_uri":
                do throws(TenantRuleError) {
                    try checkServiceURL(text)
                } catch {
                    return "its \"token_uri\" is not usable: \(error.message)"
                }
            default: break
            }
        }
        return nil
    }

    /// One PEM block whose label is a private key's, with a base64 body; the key itself is not parsed.
    static func isPEMPrivateKey(_ text: String) -> Bool {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingPEMSpaces() }.filter { !$0.isEmpty }
        guard lines.count >= 3, let first = lines.first, let last = lines.last,
            first.hasPrefix("-----BEGIN "), first.hasSuffix("-----")
        else { return false }
        let label = first.dropFirst("-----BEGIN ".count).dropLast("-----".count)
        guard label.hasSuffix("PRIVATE KEY"), last == "-----END \(label)-----" else { return false }
        return lines.dropFirst().dropLast().allSatisfy { line in
            line.unicodeScalars.allSatisfy { scalar in
                switch scalar {
                case "A"..."Z", "a"..."z", "0"..."9", "+", "/", "=": true
                default: false
                }
            }
        }
    }

    /// At least one environment is accepted.
    package static func checkEnvironmentsListed(count: Int) throws(TenantRuleError) {
        try ListRule.checkNotEmpty(
            count: count,
            "no environments are listed, so every purchase would be refused; list at least one, or remove \"play_store\"")
    }

    /// One `play_store.products` entry (its ID checked by ``Tenant/checkProductID(_:)``): unless it is a
    /// consumable, the tenant's `products` (`mappedProducts`) maps it, or for a subscription at least one of its base
    /// plans (`"<id>:<basePlanId>"`).
    package static func checkProduct(_ id: String, type: PlayProductType, mappedProducts: [String: [String]])
        throws(TenantRuleError)
    {
        switch type {
        case .consumable: return
        case .nonConsumable:
            if mappedProducts[id] != nil { return }
            throw TenantRuleError(
                .unmappedProduct,
                "non_consumable product \"\(id)\" is not in the tenant's \"products\", so a purchase of it would "
                    + "grant nothing; map it to its entitlements there (only consumables, which grant nothing, may be "
                    + "left out)")
        case .subscription:
            let basePlanPrefix = id + ":"
            if mappedProducts[id] != nil
                || mappedProducts.keys.contains(where: { $0.hasPrefix(basePlanPrefix) && $0.count > basePlanPrefix.count })
            {
                return
            }
            throw TenantRuleError(
                .unmappedProduct,
                "subscription product \"\(id)\" is not in the tenant's \"products\", so a purchase of it would grant "
                    + "nothing; map it to its entitlements there, as \"\(id)\" or per base plan as "
                    + "\"\(id):<basePlanId>\" (only consumables, which grant nothing, may be left out)")
        }
    }

    /// The Google Play Developer API's base URL: see ``checkServiceURL(_:)``.
    package static func checkAPIBaseURL(_ text: String) throws(TenantRuleError) {
        try checkServiceURL(text)
    }

    /// `value` is nil when `text` is not a whole number.
    package static func checkVoidedPurchasesPollMinutes(_ value: Int?, written text: String) throws(TenantRuleError)
        -> Int
    {
        try ListRule.wholeNumber(value, written: text, in: voidedPurchasesPollMinutesRange, unit: "minutes")
    }

    /// A URL the server calls (the API's base, a JWKS URL, a key file's `token_uri`, a tenant's webhook endpoint):
    /// absolute `https://`, or `http://` to a loopback host only (127.x.x.x, `[::1]`, `localhost`: a local fake in
    /// tests) unless `allowingPlainHTTP`, without user info or fragment, and without a query unless `allowingQuery`.
    package static func checkServiceURL(_ text: String, allowingQuery: Bool = false, allowingPlainHTTP: Bool = false)
        throws(TenantRuleError)
    {
        if text.isEmpty { throw TenantRuleError(.invalidValue, "the URL is empty") }
        if let scalar = text.unicodeScalars.first(where: { !$0.isASCII || $0.value <= 0x20 || $0.value == 0x7F }) {
            throw TenantRuleError(
                .invalidValue, "the URL contains \(AppUserID.codePoint(scalar)); write it without spaces, percent-encoded")
        }
        let lowered = text.lowercased()
        let isHTTPS = lowered.hasPrefix("https://")
        guard isHTTPS || lowered.hasPrefix("http://") else {
            throw TenantRuleError(.invalidValue, "\"\(text)\" is not an absolute https:// URL")
        }
        if text.contains("#") || (!allowingQuery && text.contains("?")) {
            throw TenantRuleError(
                .invalidValue,
                "\"\(text)\" has \(allowingQuery ? "a fragment" : "a query or a fragment"); give the URL without "
                    + (allowingQuery ? "it" : "them"))
        }
        let rest = text.dropFirst(isHTTPS ? "https://".count : "http://".count)
        let authority = rest[..<(rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex)]
        if authority.contains("@") {
            throw TenantRuleError(.invalidValue, "\"\(text)\" has user info before its host; credentials do not belong in it")
        }
        guard let host = host(ofAuthority: authority) else {
            throw TenantRuleError(.invalidValue, "\"\(text)\" has no valid host and port")
        }
        if !isHTTPS && !allowingPlainHTTP && !isLoopback(host) {
            throw TenantRuleError(
                .invalidValue,
                "\"\(text)\" is plain http:// to a host other than this machine; use https://, or http:// only for a "
                    + "loopback host (127.x.x.x, [::1], localhost)")
        }
    }

    /// The lowercased host of `host[:port]` or `[ipv6][:port]` (brackets removed), or nil when it is not one.
    private static func host(ofAuthority authority: Substring) -> String? {
        var host = authority
        var port: Substring?
        if host.first == "[" {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !after.isEmpty {
                guard after.first == ":" else { return nil }
                port = after.dropFirst()
            }
            guard host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            if let colon = host.firstIndex(of: ":") {
                port = host[host.index(after: colon)...]
                host = host[..<colon]
            }
            guard host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == "_" }) else { return nil }
        }
        if let port {
            guard !port.isEmpty, port.allSatisfy(isDigit), let value = Int(port), (1...65535).contains(value)
            else { return nil }
        }
        return host.isEmpty ? nil : host.lowercased()
    }

    private static func isDigit(_ character: Character) -> Bool {
        ("0"..."9").contains(character)
    }

    /// `localhost`, `::1` or a dotted-quad 127.x.x.x address.
    private static func isLoopback(_ host: String) -> Bool {
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127"
            && octets.allSatisfy { $0.count <= 3 && !$0.isEmpty && $0.allSatisfy(isDigit) && Int($0)! <= 255 }
    }

    /// `local@domain.tld`: one `@`, a domain with a dot, no whitespace or control characters, at most 254 bytes.
    static func looksLikeEmail(_ text: String) -> Bool {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard text.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty,
            text.unicodeScalars.allSatisfy({ !AppUserID.isControl($0) && !AppUserID.isWhitespace($0) })
        else { return false }
        let labels = parts[1].split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty }
    }

    /// A key file's JSON value: a readable regular file of at most ``maxKeyFileBytes``, JSON. `what` names the
    /// file in errors, which never quote its contents.
    static func keyFileJSON(_ path: String, what: String) throws(TenantRuleError) -> JSONValue {
        let bytes = try keyFileBytes(path, what: what)
        // The reader's message is left out: it may quote what it could not parse.
        guard let json = try? JSONReader.read(JSONValue.self, from: bytes) else {
            throw TenantRuleError(.unreadableKeyFile, "\(what) \"\(path)\" is not JSON")
        }
        return json
    }

    /// A key file's bytes: a regular, readable, non-empty file of at most ``maxKeyFileBytes``.
    static func keyFileBytes(_ path: String, what: String) throws(TenantRuleError) -> [UInt8] {
        // A device or a pipe (/dev/zero, /dev/stdin) could be read forever; readFile explains the other kinds.
        if FileSystem.kind(of: path) == .other {
            throw TenantRuleError(.unreadableKeyFile, "cannot read \(what) \"\(path)\": it is not a regular file")
        }
        let bytes: [UInt8]
        switch FileSystem.readFile(path) {
        case .failure(let error):
            throw TenantRuleError(.unreadableKeyFile, "cannot read \(what) \"\(path)\": \(error.reason)")
        case .success(let contents): bytes = contents
        }
        if bytes.isEmpty { throw TenantRuleError(.unreadableKeyFile, "cannot read \(what) \"\(path)\": the file is empty") }
        if bytes.count > maxKeyFileBytes {
            throw TenantRuleError(
                .unreadableKeyFile,
                "\(what) \"\(path)\" is \(bytes.count) bytes long, more than a key file can be "
                    + "(\(maxKeyFileBytes / 1024) KiB)")
        }
        return bytes
    }
}

extension PlayNotificationSettings {
    /// The longest `audience` accepted.
    public static let maxAudienceLength = 2048

    /// These settings checked as a configured `play_store.notifications` would be, with a JWKS file resolved
    /// against `directory` (made absolute). Error paths are relative to `notifications`.
    package func validated(directory: String) throws(TenantRuleError) -> PlayNotificationSettings {
        var settings = self
        try TenantRuleError.at(".audience") { () throws(TenantRuleError) in try Self.checkAudience(audience) }
        try TenantRuleError.at(".push_service_account") { () throws(TenantRuleError) in
            try Self.checkPushServiceAccount(pushServiceAccount)
        }
        settings.signingKeys = try signingKeys.validated(directory: directory)
        return settings
    }

    /// The push token's expected `aud`: 1–2048 bytes, no control characters or surrounding whitespace (it is
    /// compared exactly).
    package static func checkAudience(_ audience: String) throws(TenantRuleError) {
        if audience.isEmpty {
            throw TenantRuleError(
                .invalidValue,
                "the audience is empty; use the audience set on the Pub/Sub push subscription (by default its push "
                    + "endpoint URL)")
        }
        if audience.utf8.count > maxAudienceLength {
            throw TenantRuleError(
                .invalidValue, "the audience is \(audience.utf8.count) bytes long; the limit is \(maxAudienceLength)")
        }
        if let scalar = audience.unicodeScalars.first(where: AppUserID.isControl) {
            throw TenantRuleError(.invalidValue, "the audience contains the control character \(AppUserID.codePoint(scalar))")
        }
        if AppUserID.isWhitespace(audience.unicodeScalars.first!) || AppUserID.isWhitespace(audience.unicodeScalars.last!) {
            throw TenantRuleError(
                .invalidValue,
                "the audience has leading or trailing whitespace, so no push token's \"aud\" would match it")
        }
    }

    /// The push subscription's service account: an email address.
    package static func checkPushServiceAccount(_ account: String) throws(TenantRuleError) {
        guard PlayStoreSettings.looksLikeEmail(account) else {
            let shown = account.unicodeScalars.contains(where: AppUserID.isControl) ? "it" : "\"\(account)\""
            throw TenantRuleError(
                .invalidValue,
                "expected the email of the service account the Pub/Sub push subscription authenticates as, such as "
                    + "\"rtdn-push@PROJECT.iam.gserviceaccount.com\"; \(shown) does not look like an email address")
        }
    }
}

extension Substring {
    /// Without the spaces, tabs and carriage returns around a PEM line.
    fileprivate func trimmingPEMSpaces() -> Substring {
        var line = self
        while let first = line.first, first == " " || first == "\t" || first == "\r" { line = line.dropFirst() }
        while let last = line.last, last == " " || last == "\t" || last == "\r" { line = line.dropLast() }
        return line
    }
}

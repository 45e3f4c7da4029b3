import EntitlementDomain
import Testing

/// The limits and syntax of customer attributes, each refusal naming its rule.
@Suite struct AttributeRulesTests {
    static let settings = AttributeSettings(appKeys: ["$email", "$locale"], backendKeys: ["plan"])

    func check(_ change: AttributeChange, by writer: AttributeWriter = .backend, settings: AttributeSettings = .defaults)
        throws(DomainError) -> AttributeChange
    {
        try AttributeRules.checked(change, allowed: { settings.allows($0, by: writer) }, writerName: "the caller")
    }

    func refusal(_ change: AttributeChange, by writer: AttributeWriter = .backend, settings: AttributeSettings = .defaults)
        -> DomainError?
    {
        do throws(DomainError) {
            _ = try check(change, by: writer, settings: settings)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("plan", nil), ("a", nil), ("crm.id-2_x", nil), (String(repeating: "k", count: 40), nil),
        ("", "empty"), (String(repeating: "k", count: 41), "41 bytes"), ("_plan", "letter or digit"),
        ("plan id", "letter or digit"), ("plän", "letter or digit"), ("$plan", "reserved keys"), ("$Email", "reserved keys"),
    ] as [(String, String?)])
    func keys(key: String, problem: String?) {
        let found = AttributeRules.keyProblem(key)
        if let problem { #expect(found?.contains(problem) == true, "\(key): \(found ?? "nil")") } else { #expect(found == nil) }
    }

    @Test(arguments: [
        ("", "empty"), (String(repeating: "v", count: 501), "501 bytes"), ("a\u{0}b", "U+0000"),
        ("line\nbreak", "U+000A"), (" padded", "whitespace"), ("padded\u{3000}", "whitespace"),
    ])
    func valuesAreBounded(value: String, rule: String) throws {
        let error = refusal(AttributeChange(set: [("plan", value)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains(rule) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("attributes[0].value") == true)
        #expect(try check(AttributeChange(set: [("plan", String(repeating: "é", count: 250))])).set.count == 1)
    }

    @Test(arguments: [
        "ana@example.com", "Ana.Maria+tag@Mail.Example.CO.uk", "o'hara@example.org", "josé@exämple.de",
        "x@a-b.io", String(repeating: "l", count: 64) + "@example.com",
    ])
    func emailsAccepted(address: String) throws {
        #expect(try check(AttributeChange(set: [("$email", address)])).set.first?.value == address)
    }

    @Test(arguments: [
        ("ana", "exactly one @"), ("ana@@example.com", "exactly one @"), ("a@b@example.com", "exactly one @"),
        ("@example.com", "1 to 64 bytes"), (String(repeating: "l", count: 65) + "@example.com", "1 to 64 bytes"),
        ("ana@localhost", "two labels"), ("ana@example..com", "1 to 63 bytes"), ("ana@-example.com", "starts or ends with -"),
        ("an a@example.com", "U+0020"), (".ana@example.com", "empty dot-separated part"), ("ana.@example.com", "empty dot-separated part"),
        ("ana@exa_mple.com", "U+005F"), ("ana@" + String(repeating: "d", count: 64) + ".com", "1 to 63 bytes"),
        (String(repeating: "l", count: 60) + "@" + String(repeating: "d.", count: 96) + "com", "254 bytes"),
    ])
    func emailsRefused(address: String, rule: String) {
        let error = refusal(AttributeChange(set: [("$email", address)]))
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("$email") == true)
        #expect(error?.message.contains(rule) == true, "\(address): \(error?.message ?? "nil")")
    }

    @Test(arguments: [
        ("+15550100199", "+15550100199"), ("+1 (555) 010-0199", "+15550100199"), ("+44 20.7946.0958", "+442079460958"),
    ])
    func phoneNumbersAreStoredAsE164(given: String, stored: String) throws {
        #expect(try check(AttributeChange(set: [("$phoneNumber", given)])).set.first?.value == stored)
    }

    @Test(arguments: [
        ("5550100199", "starts with +"), ("+0 555 0100", "do not start with 0"), ("+1555", "4 digits"),
        ("+1234567890123456", "16 digits"), ("+1 555 CALL", "only digits"),
    ])
    func phoneNumbersRefused(given: String, rule: String) {
        let error = refusal(AttributeChange(set: [("$phoneNumber", given)]))
        #expect(error?.message.contains(rule) == true, "\(given): \(error?.message ?? "nil")")
    }

    @Test(arguments: [
        ("en", "en"), ("en_us", "en-US"), ("PT-br", "pt-BR"), ("zh-Hant-TW", "zh-Hant-TW"), ("yue-HK", "yue-HK"),
        ("es-419", "es-419"),
    ])
    func localesAreStoredAsLanguageTags(given: String, stored: String) throws {
        #expect(try check(AttributeChange(set: [("$locale", given)])).set.first?.value == stored)
    }

    @Test(arguments: ["e", "english", "en--US", "en-US-", "12-US", "en-toolongsubtag"])
    func localesRefused(given: String) {
        #expect(refusal(AttributeChange(set: [("$locale", given)]))?.message.contains("BCP 47") == true, "\(given)")
    }

    @Test func aCallChangesSomethingAtMostFiftyKeysEachOnce() throws {
        #expect(refusal(AttributeChange())?.message.contains("both empty") == true)
        let fifty = (0..<50).map { ("k\($0)", "v") }
        #expect(try check(AttributeChange(set: fifty)).set.count == 50)
        #expect(refusal(AttributeChange(set: fifty, unset: ["x"]))?.message.contains("at most 50 keys") == true)
        #expect(refusal(AttributeChange(set: [("plan", "a"), ("plan", "b")]))?.message.contains("named twice") == true)
        let across = refusal(AttributeChange(set: [("plan", "a")], unset: ["plan"]))
        #expect(across?.message.contains("unset_keys[0]") == true)
        #expect(refusal(AttributeChange(unset: ["$nope"]))?.code == .invalidRequest)
    }

    @Test func eachWriterWritesItsKeys() throws {
        let settings = Self.settings
        #expect(try check(AttributeChange(set: [("$email", "a@example.com")]), by: .app, settings: settings).set.count == 1)
        let app = refusal(AttributeChange(set: [("plan", "gold")]), by: .app, settings: settings)
        #expect(app?.code == .permissionDenied)
        #expect(app?.message.contains("attributes[0].key") == true)
        // The backend writes its keys and the app's, and nothing else once it lists its own.
        #expect(try check(AttributeChange(set: [("plan", "gold"), ("$locale", "en")]), settings: settings).set.count == 2)
        #expect(refusal(AttributeChange(unset: ["crm_id"]), settings: settings)?.code == .permissionDenied)
        #expect(refusal(AttributeChange(unset: ["$displayName"]), settings: settings)?.code == .permissionDenied)
        // By default apps write the reserved keys and the backend anything.
        #expect(AttributeSettings.defaults.allows("$phoneNumber", by: .app))
        #expect(!AttributeSettings.defaults.allows("plan", by: .app))
        #expect(AttributeSettings.defaults.allows("anything", by: .backend))
    }

    @Test func configuredKeysFollowTheRules() throws {
        #expect(throws: TenantRuleError.self) {
            try Tenant(id: "t", publicKeyHashes: [APIKey.hashString(APIKey.generate(.publicKey))!],
                attributes: AttributeSettings(appKeys: ["$nope"], backendKeys: nil))
        }
        #expect(throws: TenantRuleError.self) {
            try Tenant(id: "t", publicKeyHashes: [APIKey.hashString(APIKey.generate(.publicKey))!],
                attributes: AttributeSettings(appKeys: [], backendKeys: ["plan", "plan"]))
        }
    }
}

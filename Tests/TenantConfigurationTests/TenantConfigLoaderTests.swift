import EntitlementDomain
import TenantConfiguration
import Testing

@Suite struct TenantConfigLoaderTests {
    static let publicHash = APIKey.hashString("pk_test_public")!
    static let secretHash = APIKey.hashString("sk_test_secret")!
    static let otherPublicHash = APIKey.hashString("pk_test_other")!

    /// One tenant whose fields are given as JSON text, in a document with one field per line.
    private func document(
        id: String = "\"demo\"", publicKeys: String? = nil, secretKeys: String? = nil, extra: [String] = []
    ) -> String {
        var fields = ["\"id\": \(id)"]
        fields.append("\"public_keys\": " + (publicKeys ?? "[\"\(Self.publicHash)\"]"))
        fields.append("\"secret_keys\": " + (secretKeys ?? "[\"\(Self.secretHash)\"]"))
        fields += extra
        return "{\n\"tenants\": [\n{\n" + fields.joined(separator: ",\n") + "\n}\n]\n}\n"
    }

    private func load(_ text: String) throws(TenantConfigError) -> TenantDirectory {
        try TenantConfigLoader.parse(Array(text.utf8), file: "tenants.json")
    }

    private func failure(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> TenantConfigError? {
        do {
            _ = try load(text)
            Issue.record("expected a configuration error", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.file == "tenants.json", sourceLocation: sourceLocation)
            #expect(error.description.hasPrefix("tenants.json:"), sourceLocation: sourceLocation)
            return error
        }
    }

    // MARK: Valid

    @Test func loadsAValidTenant() throws {
        let directory = try load(document(extra: [
            "\"entitlements\": [\"pro\", \"beta\"]", "\"allow_undeclared_entitlements\": true",
            "\"products\": {\"com.example.pro\": [\"pro\"], \"com.example.bundle\": [\"premium\", \"pro\"]}",
            "\"_comment\": [\"notes\", \"more notes\"]",
        ]))
        let tenant = try #require(directory.tenant(id: "demo"))
        #expect(tenant.declaredEntitlements == ["pro", "beta", "premium"])
        #expect(tenant.listedEntitlements == ["pro", "beta"])
        #expect(tenant.allowUndeclaredEntitlements)
        #expect(tenant.entitlements(forProduct: "com.example.bundle") == ["premium", "pro"])
        #expect(tenant.entitlements(forProduct: "com.example.unknown") == [])
        #expect(tenant.isDeclared(entitlementID: "premium"))
        #expect(!tenant.isDeclared(entitlementID: "gold"))
        #expect(directory.authenticate(bearer: "pk_test_public")?.key.kind == .publicKey)
        #expect(directory.authenticate(bearer: "sk_test_secret")?.key.kind == .secretKey)
    }

    @Test func optionalFieldsDefault() throws {
        let directory = try load("{\"tenants\": [{\"id\": \"a\", \"secret_keys\": [\"\(Self.secretHash)\"]}], \"_comment\": \"x\"}")
        let tenant = try #require(directory.tenant(id: "a"))
        #expect(tenant.publicKeys.isEmpty)
        #expect(!tenant.allowUndeclaredEntitlements)
        #expect(tenant.products.isEmpty)
        #expect(tenant.declaredEntitlements.isEmpty)
        // An empty public list is fine when there are secret keys, and the reverse.
        #expect(throws: Never.self) { try load(document(publicKeys: "[]")) }
        #expect(throws: Never.self) { try load(document(secretKeys: "[]")) }
    }

    // MARK: Malformed JSON

    @Test func malformedJSONNamesLineAndColumn() throws {
        let error = try #require(failure("{\n  \"tenants\": [\n    }\n"))
        #expect(error.code == .malformedJSON)
        #expect(error.line == 3)
        #expect(error.description == "tenants.json:3: malformed JSON at column 5: unexpected '}'; expected a value")
        #expect(failure("")?.code == .malformedJSON)
        #expect(failure("{\"tenants\": [],}")?.message.contains("trailing comma") == true)
        #expect(failure("// comment\n{}")?.code == .malformedJSON)
        #expect(failure("{\"tenants\": []} x")?.message.contains("after the end of the JSON document") == true)
        #expect(failure("{'tenants': []}")?.code == .malformedJSON)
        #expect(failure("{\"tenants\": [\"unterminated]}")?.message.contains("unterminated string") == true)
    }

    @Test func invalidUTF8IsMalformed() throws {
        do {
            _ = try TenantConfigLoader.parse([0x7B, 0xFF, 0x7D], file: "bad.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .malformedJSON)
            #expect(error.message.contains("not valid UTF-8"))
        }
    }

    @Test func repeatedJSONKeyIsAnErrorNotALastOneWins() throws {
        let error = try #require(failure(document(extra: ["\"secret_keys\": []"])))
        #expect(error.code == .malformedJSON)
        #expect(error.path == "tenants[0].secret_keys")
        #expect(error.line == 7)
        #expect(error.description == "tenants.json:7: tenants[0].secret_keys: malformed JSON: duplicate key \"secret_keys\"")
    }

    // MARK: Fields

    @Test func unknownFieldsAreTyposNotDefaults() throws {
        let typo = try #require(failure(document(extra: ["\"allow_undeclared_entitlement\": true"])))
        #expect(typo.code == .unknownField)
        #expect(typo.path == "tenants[0].allow_undeclared_entitlement")
        #expect(typo.line == 7)
        #expect(typo.message == "unknown field \"allow_undeclared_entitlement\" in a tenant; did you mean \"allow_undeclared_entitlements\"?")

        let top = try #require(failure("{\"tenant\": []}"))
        #expect(top.code == .unknownField)
        #expect(top.message.contains("did you mean \"tenants\"?"))

        let far = try #require(failure(document(extra: ["\"store_settings\": {}"])))
        #expect(far.message.contains("known fields: \"id\", \"public_keys\""))
    }

    @Test func missingFields() throws {
        let noTenants = try #require(failure("{}"))
        #expect(noTenants.code == .missingField)
        #expect(noTenants.message.contains("missing \"tenants\""))
        let noID = try #require(failure("{\"tenants\": [{\"secret_keys\": [\"\(Self.secretHash)\"]}]}"))
        #expect(noID.code == .missingField)
        #expect(noID.path == "tenants[0]")
        #expect(noID.message == "missing \"id\"")
    }

    @Test func wrongTypes() throws {
        let cases: [(String, String, String)] = [
            (document(publicKeys: "\"\(Self.publicHash)\""), "tenants[0].public_keys", "expected an array, found a string"),
            (document(extra: ["\"allow_undeclared_entitlements\": \"false\""]), "tenants[0].allow_undeclared_entitlements", "expected true or false, found a string"),
            (document(extra: ["\"products\": []"]), "tenants[0].products", "expected an object of product ID → entitlement IDs, found an array"),
            (document(extra: ["\"products\": {\"p\": \"pro\"}"]), "tenants[0].products[\"p\"]", "expected an array, found a string"),
            (document(extra: ["\"entitlements\": [1]"]), "tenants[0].entitlements[0]", "expected a string, found a number"),
            (document(id: "7"), "tenants[0].id", "expected a string, found a number"),
            (document(extra: ["\"_comment\": 1"]), "tenants[0]._comment", "expected a string or an array of strings, found a number"),
            ("{\"tenants\": {}}", "tenants", "expected an array, found an object"),
            ("{\"tenants\": [null]}", "tenants[0]", "expected an object, found null"),
            ("[]", "", "expected an object, found an array"),
        ]
        for (text, path, message) in cases {
            let error = try #require(failure(text))
            #expect(error.code == .typeMismatch)
            #expect(error.path == path)
            #expect(error.message == message)
        }
    }

    @Test func noTenantsAndTenantsWithoutKeys() throws {
        #expect(failure("{\"tenants\": []}")?.code == .noTenants)
        let bare = try #require(failure(document(publicKeys: "[]", secretKeys: "[]")))
        #expect(bare.code == .noKeys)
        #expect(bare.path == "tenants[0]")
        #expect(bare.message.contains("tenant \"demo\" has no keys"))
        #expect(failure("{\"tenants\": [{\"id\": \"x\"}]}")?.code == .noKeys)
    }

    @Test func tenantIDs() throws {
        for id in ["\"\"", "\"Demo\"", "\"a b\"", "\"dé\"", "\"" + String(repeating: "a", count: 65) + "\""] {
            let error = try #require(failure(document(id: id)))
            #expect(error.code == .invalidValue)
            #expect(error.path == "tenants[0].id")
        }
        #expect(throws: Never.self) { try load(document(id: "\"" + String(repeating: "a", count: 64) + "\"")) }
        #expect(throws: Never.self) { try load(document(id: "\"my_app-2\"")) }
    }

    @Test func duplicateTenantIDs() throws {
        let text = """
            {"tenants": [
              {"id": "a", "public_keys": ["\(Self.publicHash)"]},
              {"id": "a", "public_keys": ["\(Self.otherPublicHash)"]}
            ]}
            """
        let error = try #require(failure(text))
        #expect(error.code == .duplicateTenant)
        #expect(error.path == "tenants[1].id")
        #expect(error.line == 3)
        #expect(error.message == "tenant ID \"a\" is already used by tenants[0]")
    }

    // MARK: Keys

    @Test func sameKeyHashTwiceAnywhere() throws {
        let withinTenant = try #require(failure(document(publicKeys: "[\"\(Self.publicHash)\", \"\(Self.publicHash)\"]")))
        #expect(withinTenant.code == .duplicateKeyHash)
        #expect(withinTenant.path == "tenants[0].public_keys[1]")
        #expect(withinTenant.message.contains("already listed at tenants[0].public_keys[0]"))

        let text = """
            {"tenants": [
              {"id": "a", "secret_keys": ["\(Self.secretHash)"]},
              {"id": "b",
               "secret_keys": ["\(Self.secretHash)"]}
            ]}
            """
        let acrossTenants = try #require(failure(text))
        #expect(acrossTenants.code == .duplicateKeyHash)
        #expect(acrossTenants.path == "tenants[1].secret_keys[0]")
        #expect(acrossTenants.line == 4)
        #expect(acrossTenants.message.contains("tenants[0].secret_keys[0]"))
    }

    @Test func publicKeyHashUnderSecretKeysIsALoadError() throws {
        let error = try #require(failure(document(secretKeys: "[\"\(Self.publicHash)\"]")))
        #expect(error.code == .keyKindMismatch)
        #expect(error.path == "tenants[0].secret_keys[0]")
        #expect(error.message == "a public key's hash (pk_sha256:...) is listed under \"secret_keys\"; it belongs in \"public_keys\"")
        let reverse = try #require(failure(document(publicKeys: "[\"\(Self.secretHash)\"]")))
        #expect(reverse.code == .keyKindMismatch)
        #expect(reverse.path == "tenants[0].public_keys[0]")
    }

    @Test func badHashFormats() throws {
        let hex = String(Self.publicHash.dropFirst("pk_sha256:".count))
        for bad in ["sha256:" + hex, "pk_sha256:" + hex.dropLast(), "pk_sha256:" + hex.dropLast() + "x", "pk_md5:" + hex, hex, ""] {
            let error = try #require(failure(document(publicKeys: "[\"\(bad)\"]")))
            #expect(error.code == .invalidValue)
            #expect(error.path == "tenants[0].public_keys[0]")
            #expect(error.message.hasPrefix("expected \"pk_sha256:\" followed by the 64 hex digits"))
        }
    }

    @Test func keysMayCarryANameAndSecretKeysAScope() throws {
        let reader = APIKey.hashString("sk_test_reader")!
        let directory = try load(document(
            publicKeys: "[{\"hash\": \"\(Self.publicHash)\", \"name\": \"ios-app\"}]",
            secretKeys: "[\"\(Self.secretHash)\", {\"hash\": \"\(reader)\", \"name\": \"support.ana@example\", \"scope\": \"read\", \"_comment\": \"desk\"}]"))
        let sdk = try #require(directory.authenticate(bearer: "pk_test_public"))
        #expect(sdk.key.name == "ios-app" && sdk.key.scope == .write)
        let admin = try #require(directory.authenticate(bearer: "sk_test_secret"))
        #expect(admin.key.name == String(Self.secretHash.prefix("sk_sha256:".count + 8)))
        #expect(admin.key.scope == .write)
        let support = try #require(directory.authenticate(bearer: "sk_test_reader"))
        #expect(support.key.name == "support.ana@example" && support.key.scope == .read && support.key.kind == .secretKey)
    }

    @Test func badKeyObjects() throws {
        let other = APIKey.hashString("sk_test_other")!
        let cases: [(String, TenantConfigError.Code, String, String)] = [
            (document(secretKeys: "[{\"name\": \"a\"}]"), .missingField, "tenants[0].secret_keys[0]", "missing \"hash\""),
            (document(secretKeys: "[{\"hash\": \"\(Self.secretHash)\", \"scope\": \"admin\"}]"), .invalidValue,
             "tenants[0].secret_keys[0].scope", "scope must be \"read\" or \"write\""),
            (document(publicKeys: "[{\"hash\": \"\(Self.publicHash)\", \"scope\": \"read\"}]"), .invalidValue,
             "tenants[0].public_keys[0].scope", "only secret keys have a scope; a public key may call EntitlementService and nothing else"),
            (document(secretKeys: "[{\"hash\": \"\(Self.secretHash)\", \"name\": \"a b\"}]"), .invalidValue,
             "tenants[0].secret_keys[0].name", "a key name must be 1 to 64 characters of A-Z, a-z, 0-9 and . _ @ + -"),
            (document(secretKeys: "[{\"hash\": \"\(Self.secretHash)\", \"name\": \"\"}]"), .invalidValue,
             "tenants[0].secret_keys[0].name", "a key name must be 1 to 64 characters of A-Z, a-z, 0-9 and . _ @ + -"),
            (document(secretKeys: "[{\"hash\": \"\(Self.secretHash)\", \"nmae\": \"a\"}]"), .unknownField,
             "tenants[0].secret_keys[0].nmae", "unknown field \"nmae\" in a key; did you mean \"name\"?"),
            (document(
                publicKeys: "[{\"hash\": \"\(Self.publicHash)\", \"name\": \"desk\"}]",
                secretKeys: "[{\"hash\": \"\(other)\", \"name\": \"desk\"}]"), .duplicateEntry,
             "tenants[0].secret_keys[0]", "key name \"desk\" is already used by another key of this tenant"),
            (document(secretKeys: "[7]"), .typeMismatch, "tenants[0].secret_keys[0]",
             "expected a key hash string, or an object with \"hash\", \"name\" and \"scope\", found a number"),
            (document(secretKeys: "[{\"hash\": \"\(Self.publicHash)\"}]"), .keyKindMismatch, "tenants[0].secret_keys[0].hash",
             "a public key's hash (pk_sha256:...) is listed under \"secret_keys\"; it belongs in \"public_keys\""),
        ]
        for (text, code, path, message) in cases {
            let error = try #require(failure(text))
            #expect(error.code == code, "\(path)")
            #expect(error.path == path)
            #expect(error.message == message)
        }
    }

    @Test func aRawKeyIsRefusedWithoutBeingRepeated() throws {
        let key = APIKey.generate(.secretKey)
        let error = try #require(failure(document(secretKeys: "[\"\(key)\"]")))
        #expect(error.code == .invalidValue)
        #expect(error.message.contains("looks like an API key itself"))
        #expect(!error.description.contains(key))
        #expect(!error.description.contains(key.dropFirst(3)))
    }

    // MARK: Entitlements and products

    @Test func entitlementIDs() throws {
        let cases: [(String, String)] = [
            ("\"\"", "entitlement ID is empty"), ("\"pro plan\"", "contains whitespace"),
            ("\"pro\\n\"", "control character U+000A"), ("\"" + String(repeating: "e", count: 129) + "\"", "is 129 bytes"),
        ]
        for (value, problem) in cases {
            let error = try #require(failure(document(extra: ["\"entitlements\": [\"pro\", \(value)]"])))
            #expect(error.code == .invalidValue)
            #expect(error.path == "tenants[0].entitlements[1]")
            #expect(error.message.contains(problem), "\(error.message)")
        }
        let duplicate = try #require(failure(document(extra: ["\"entitlements\": [\"pro\", \"pro\"]"])))
        #expect(duplicate.code == .duplicateEntry)
        #expect(duplicate.path == "tenants[0].entitlements[1]")
    }

    @Test func products() throws {
        let emptyID = try #require(failure(document(extra: ["\"products\": {\"\": [\"pro\"]}"])))
        #expect(emptyID.code == .invalidValue)
        #expect(emptyID.path == "tenants[0].products[\"\"]")
        #expect(emptyID.message == "a product ID is empty")

        let spaced = try #require(failure(document(extra: ["\"products\": {\"com.x \": [\"pro\"]}"])))
        #expect(spaced.message.contains("leading or trailing whitespace"))

        let givesNothing = try #require(failure(document(extra: ["\"products\": {\"com.x\": []}"])))
        #expect(givesNothing.code == .invalidValue)
        #expect(givesNothing.message.contains("gives no entitlements"))

        let badEntitlement = try #require(failure(document(extra: ["\"products\": {\"com.x\": [\"pro\", \"a b\"]}"])))
        #expect(badEntitlement.path == "tenants[0].products[\"com.x\"][1]")

        let repeated = try #require(failure(document(extra: ["\"products\": {\"com.x\": [\"pro\", \"pro\"]}"])))
        #expect(repeated.code == .duplicateEntry)

        let repeatedProduct = try #require(failure(document(extra: ["\"products\": {\"com.x\": [\"pro\"], \"com.x\": [\"pro\"]}"])))
        #expect(repeatedProduct.code == .malformedJSON)
        #expect(repeatedProduct.path == "tenants[0].products.com.x")
    }

    // MARK: Files

    @Test func unreadableFiles() throws {
        do {
            _ = try TenantConfigLoader.load(path: "/nonexistent/tenants.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unreadableFile)
            #expect(error.description == "/nonexistent/tenants.json: cannot read the tenant configuration: No such file or directory")
        }
        do {
            _ = try TenantConfigLoader.load(path: "/tmp")
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unreadableFile)
            #expect(error.message.contains("it is a directory"))
        }
    }
}

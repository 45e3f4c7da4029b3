import EntitlementDomain
import Testing

@Suite struct APIKeyTests {
    @Test func generatedKeysHaveThePrefixAnd64RandomHexDigits() throws {
        for kind in APIKey.Kind.allCases {
            let key = APIKey.generate(kind)
            #expect(key.hasPrefix(kind.prefix))
            let random = key.dropFirst(3)
            #expect(random.count == 64)
            #expect(random.allSatisfy { "0123456789abcdef".contains($0) })
            #expect(APIKey.kind(of: key) == kind)
            #expect(key != APIKey.generate(kind))
        }
        #expect(APIKey.Kind.publicKey.prefix == "pk_")
        #expect(APIKey.Kind.secretKey.prefix == "sk_")
    }

    @Test func kindComesFromThePrefix() {
        #expect(APIKey.kind(of: "pk_x") == .publicKey)
        #expect(APIKey.kind(of: "sk_x") == .secretKey)
        #expect(APIKey.kind(of: "pk_") == nil)
        #expect(APIKey.kind(of: "PK_x") == nil)
        #expect(APIKey.kind(of: "rk_x") == nil)
        #expect(APIKey.kind(of: "") == nil)
    }

    @Test func hashStringIsTheKindAndTheSHA256OfTheWholeKey() throws {
        // printf %s pk_demo_public_key_for_local_testing_only | sha256sum
        #expect(APIKey.hashString("pk_demo_public_key_for_local_testing_only")
            == "pk_sha256:35d5aca7088e728f60f874db0dff20fa535a9d136b7946679749ae2b0524c4b9")
        #expect(APIKey.hashString("sk_demo_secret_key_for_local_testing_only")
            == "sk_sha256:a07b48978af5401a44bd6f413319ed2b4ddf7103174ddcde94cebb6969ca85b6")
        #expect(APIKey.hashString("no_prefix") == nil)
        let key = APIKey.generate(.secretKey)
        let hashString = try #require(APIKey.hashString(key))
        let parsed = try #require(APIKey.parseHashString(hashString))
        #expect(parsed.kind == .secretKey)
        #expect(parsed.digest == APIKey.digest(key))
        #expect(parsed.digest.count == 32)
    }

    @Test func parseHashStringIsStrict() {
        let hex = String(repeating: "ab", count: 32)
        #expect(APIKey.parseHashString("pk_sha256:" + hex)?.kind == .publicKey)
        #expect(APIKey.parseHashString("sk_sha256:" + hex.uppercased())?.kind == .secretKey)
        #expect(APIKey.parseHashString("sha256:" + hex) == nil)
        #expect(APIKey.parseHashString("pk_sha256:" + hex.dropLast()) == nil)
        #expect(APIKey.parseHashString("pk_sha256:" + hex + "00") == nil)
        #expect(APIKey.parseHashString("pk_sha256:" + hex.dropLast() + "g") == nil)
        #expect(APIKey.parseHashString("pk_sha1:" + hex) == nil)
    }
}

@testable import AppStore
import Crypto
import Testing

@Suite struct ChainCacheTests {
    @Test func hitsOnlyInsideTheWindowAndDropsTheOldestWhenFull() throws {
        let cache = ChainCache(capacity: 2)
        let key = try P256.PrivateKey().publicKey
        let keys = (0..<3).map { ChainCache.Key(leaf: "leaf-\($0)", intermediate: "9") }
        cache.insert(ChainCache.Entry(leafKey: key, validFrom: 100, validUntil: 200), for: keys[0])
        #expect(cache.leafKey(for: keys[0], at: 100) == key)
        #expect(cache.leafKey(for: keys[0], at: 200) == key)
        #expect(cache.leafKey(for: keys[0], at: 99) == nil)
        #expect(cache.leafKey(for: keys[0], at: 201) == nil)
        #expect(cache.leafKey(for: ChainCache.Key(leaf: "leaf-0", intermediate: "8"), at: 150) == nil)
        cache.insert(ChainCache.Entry(leafKey: key, validFrom: 100, validUntil: 200), for: keys[1])
        cache.insert(ChainCache.Entry(leafKey: key, validFrom: 100, validUntil: 200), for: keys[2])
        #expect(cache.count == 2)
        #expect(cache.leafKey(for: keys[0], at: 150) == nil)
        #expect(cache.leafKey(for: keys[2], at: 150) == key)
    }

    /// The key hashes only each certificate's length and end; chains that agree there are still different entries.
    @Test func chainsThatHashAlikeStayApart() throws {
        let cache = ChainCache(capacity: 4)
        let (first, second) = (try P256.PrivateKey().publicKey, try P256.PrivateKey().publicKey)
        let end = String(repeating: "E", count: 32)
        let one = ChainCache.Key(leaf: "A" + end, intermediate: "I" + end)
        let other = ChainCache.Key(leaf: "B" + end, intermediate: "I" + end)
        #expect(one.hashValue == other.hashValue && one != other)
        cache.insert(ChainCache.Entry(leafKey: first, validFrom: 0, validUntil: 10), for: one)
        #expect(cache.leafKey(for: other, at: 5) == nil)
        cache.insert(ChainCache.Entry(leafKey: second, validFrom: 0, validUntil: 10), for: other)
        #expect(cache.count == 2)
        #expect(cache.leafKey(for: one, at: 5) == first)
        #expect(cache.leafKey(for: other, at: 5) == second)
    }

    @Test func theVerifierCachesSuccessfulChainsOnly() throws {
        let verifier = try Fixtures.verifier()
        let untrusted = try Fixtures.Chain()
        #expect(throws: AppStoreVerificationError.self) {
            try verifier.verifyTransaction(untrusted.token(Fixtures.transaction()))
        }
        #expect(verifier.chains.cache.count == 0)
        _ = try verifier.verifyTransaction(Fixtures.token(Fixtures.transaction()))
        _ = try verifier.verifyRenewalInfo(Fixtures.token(Fixtures.renewalInfo()))
        #expect(verifier.chains.cache.count == 1)
    }
}

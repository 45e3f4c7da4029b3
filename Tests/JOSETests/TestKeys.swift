import Crypto

/// RSA keys made once per test run: generating one takes a tenth of a second, and most tests need the same two.
enum TestKeys {
    static let first: RSA.PrivateKey = generate()
    static let second: RSA.PrivateKey = generate()

    private static func generate() -> RSA.PrivateKey {
        do {
            return try RSA.PrivateKey()
        } catch {
            fatalError("RSA.PrivateKey(): \(error)")
        }
    }
}

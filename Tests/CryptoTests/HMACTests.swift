import Crypto
import Encodings
import Testing

@Suite struct HMACSHA256Tests {
    /// RFC 4231's test cases 1, 2 and 6 (a key longer than the block size).
    @Test(arguments: [
        ("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b", Array("Hi There".utf8),
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (Hex.encode(Array("Jefe".utf8)), Array("what do ya want for nothing?".utf8),
         "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        (String(repeating: "aa", count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
    ])
    func matchesRFC4231(key: String, message: [UInt8], expected: String) throws {
        let key = try #require(Hex.decode(key))
        #expect(Hex.encode(HMACSHA256.authenticationCode(for: message, key: key)) == expected)
    }

    @Test func anEmptyMessageAndKeyStillAuthenticate() {
        #expect(
            Hex.encode(HMACSHA256.authenticationCode(for: [UInt8](), key: [UInt8]()))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }
}

import RPCCore
import TestSupport
import Testing

@Suite struct Base64Tests {
    /// RFC 4648 §10: input, padded encoding, unpadded encoding.
    static let rfcVectors: [(String, String, String)] = [
        ("", "", ""),
        ("f", "Zg==", "Zg"),
        ("fo", "Zm8=", "Zm8"),
        ("foo", "Zm9v", "Zm9v"),
        ("foob", "Zm9vYg==", "Zm9vYg"),
        ("fooba", "Zm9vYmE=", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy", "Zm9vYmFy"),
    ]

    @Test(arguments: rfcVectors)
    func rfc4648Vectors(plain: String, padded: String, unpadded: String) {
        let bytes = Array(plain.utf8)
        #expect(Base64.encode(bytes) == unpadded, "unpadded is the default")
        #expect(Base64.encode(bytes, padded: false) == unpadded)
        #expect(Base64.encode(bytes, padded: true) == padded)
        #expect(Base64.decode(padded) == bytes)
        #expect(Base64.decode(unpadded) == bytes)
        #expect(Base64.decode(padded[...]) == bytes, "Substring input")
    }

    @Test func usesTheStandardAlphabet() {
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8")
        #expect(Base64.encode([0xFB, 0xFF], padded: true) == "+/8=")
        #expect(Base64.decode("+/8") == [0xFB, 0xFF])
        #expect(Base64.encode([0x00, 0x10, 0x83, 0x10, 0x51, 0x87]) == "ABCDEFGH")
        let all = (0...255).map(UInt8.init)
        #expect(Base64.decode(Base64.encode(all)) == all)
    }

    @Test(arguments: [
        "Z",  // length % 4 == 1
        "Zm9vY",
        "Zm9vY=",
        "Zm9vY===",
        "Zm9v-_8",  // URL-safe alphabet
        "Zm 9",
        " Zm9vYg",
        "Zm9v\n\n",
        "Zg==Zg==",  // padding in the middle
        "Z=g",
        "Zm9v€",
        "Zm9v\u{0}\u{0}",
        "*Zg",
        "Zm.v",
    ])
    func rejectsInvalidInput(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test func everyLengthRoundTripsPaddedAndUnpadded() throws {
        var generator = SeededRandomNumberGenerator(seed: 64)
        for length in 0...64 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let unpadded = Base64.encode(bytes)
            let padded = Base64.encode(bytes, padded: true)
            #expect(unpadded.utf8.count == (length * 4 + 2) / 3, "length \(length)")
            #expect(padded.utf8.count == (length + 2) / 3 * 4, "length \(length)")
            #expect(!unpadded.contains("="))
            #expect(padded.hasPrefix(unpadded))
            #expect(padded.dropFirst(unpadded.count).allSatisfy { $0 == "=" })
            #expect(Base64.decode(unpadded) == bytes, "length \(length)")
            #expect(Base64.decode(padded) == bytes, "length \(length)")
        }
    }
}

import Encodings
import Foundation
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
        #expect(Base64.encode(bytes, padded: false) == unpadded)
        #expect(Base64.encode(bytes, padded: true) == padded)
        #expect(Base64.encode(plain.utf8, padded: true) == padded, "a non-array collection")
        #expect(Base64.decode(padded, padding: .optional) == bytes)
        #expect(Base64.decode(unpadded, padding: .optional) == bytes)
        #expect(Base64.decode(padded[...], padding: .optional) == bytes, "Substring input")
        #expect(Base64.decode(padded, padding: .required) == bytes)
        #expect(Base64.decode(unpadded, padding: .forbidden) == bytes)
        #expect(Base64.decode(utf8: Array(padded.utf8).lazy.map { $0 }, padding: .required) == bytes)
    }

    @Test func usesTheStandardAlphabet() {
        #expect(Base64.encode([0xFB, 0xFF], padded: false) == "+/8")
        #expect(Base64.encode([0xFB, 0xFF], padded: true) == "+/8=")
        #expect(Base64.decode("+/8", padding: .optional) == [0xFB, 0xFF])
        #expect(Base64.encode([0x00, 0x10, 0x83, 0x10, 0x51, 0x87], padded: false) == "ABCDEFGH")
        let all = (0...255).map(UInt8.init)
        #expect(Base64.decode(Base64.encode(all, padded: false), padding: .optional) == all)
    }

    @Test func urlAlphabet() {
        #expect(Base64.encode([0xFB, 0xFF], alphabet: .url, padded: false) == "-_8")
        #expect(Base64.encode([0xFB, 0xFF], alphabet: .url, padded: true) == "-_8=")
        #expect(Base64.decode("-_8", alphabet: .url, padding: .forbidden) == [0xFB, 0xFF])
        #expect(Base64.decode("-_8", padding: .optional) == nil, "URL symbols are not standard ones")
        #expect(Base64.decode("+/8", alphabet: .url, padding: .forbidden) == nil)
        let all = (0...255).map(UInt8.init)
        #expect(Base64.decode(Base64.encode(all, alphabet: .url, padded: false), alphabet: .url, padding: .forbidden) == all)
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
        for padding in [Base64.Padding.optional, .required, .forbidden] {
            #expect(Base64.decode(text, padding: padding) == nil, "\(padding)")
        }
    }

    /// The strict forms a JWS needs: `.forbidden` refuses any `=`, `.required` exactly the padding the length needs.
    @Test func strictPadding() {
        #expect(Base64.decode("+/8=", alphabet: .url, padding: .forbidden) == nil)
        #expect(Base64.decode("-_8", padding: .required) == nil)
        #expect(Base64.decode("+/8", padding: .required) == nil, "standard base64 needs its padding")
        #expect(Base64.decode("QQ=", padding: .required) == nil)
        #expect(Base64.decode("Q===", padding: .required) == nil)
        #expect(Base64.decode("QQ=A", padding: .required) == nil)
        #expect(Base64.decode("QUJD\n", padding: .required) == nil)
        #expect(Base64.decode("Q", alphabet: .url, padding: .forbidden) == nil)
        #expect(Base64.decode("QQ==", padding: .required) == [0x41])
        #expect(Base64.decode("QQ=", padding: .optional) == [0x41], "gRPC accepts any trailing padding")
        #expect(Base64.decode("QQ===", padding: .optional) == [0x41])
    }

    @Test func everyLengthRoundTripsPaddedAndUnpadded() throws {
        for length in 0...64 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 151 + length * 29 + 7) }
            for alphabet in [Base64.Alphabet.standard, .url] {
                let unpadded = Base64.encode(bytes, alphabet: alphabet, padded: false)
                let padded = Base64.encode(bytes, alphabet: alphabet, padded: true)
                #expect(unpadded.utf8.count == (length * 4 + 2) / 3, "length \(length)")
                #expect(padded.utf8.count == (length + 2) / 3 * 4, "length \(length)")
                #expect(!unpadded.contains("="))
                #expect(padded.hasPrefix(unpadded))
                #expect(padded.dropFirst(unpadded.count).allSatisfy { $0 == "=" })
                #expect(Base64.decode(unpadded, alphabet: alphabet, padding: .optional) == bytes, "length \(length)")
                #expect(Base64.decode(padded, alphabet: alphabet, padding: .optional) == bytes, "length \(length)")
                #expect(Base64.decode(unpadded, alphabet: alphabet, padding: .forbidden) == bytes, "length \(length)")
                #expect(Base64.decode(padded, alphabet: alphabet, padding: .required) == bytes, "length \(length)")
                if length % 3 != 0 {
                    #expect(Base64.decode(padded, alphabet: alphabet, padding: .forbidden) == nil)
                    #expect(Base64.decode(unpadded, alphabet: alphabet, padding: .required) == nil)
                }
            }
        }
    }

    /// The decoder takes four symbols at a time: it must agree with Foundation's on every length, and refuse a byte
    /// outside the alphabet wherever it sits (inside a group of four or in the tail).
    @Test func decodingAgreesWithFoundationAndRefusesAStrayByteAnywhere() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let encoded = Data(bytes).base64EncodedString()
            #expect(Base64.decode(encoded, padding: .required) == Array(Data(base64Encoded: encoded)!))
            let unpadded = String(encoded.prefix { $0 != "=" })
            #expect(Base64.decode(unpadded, padding: .forbidden) == bytes)
            guard !unpadded.isEmpty else { continue }
            for position in [0, unpadded.count / 2, unpadded.count - 1] {
                var broken = Array(unpadded.utf8)
                broken[position] = UInt8(ascii: "*")
                #expect(Base64.decode(utf8: broken, padding: .forbidden) == nil, "length \(length), position \(position)")
            }
        }
    }
}

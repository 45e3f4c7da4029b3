import Encodings
import TestSupport
import Testing

@Suite struct PercentEncodingTests {
    /// Every byte 0x20–0x24 and 0x26–0x7E, i.e. printable ASCII except `%`.
    static let unreserved: String = {
        let bytes = (UInt8(0x20)...0x7E).filter { $0 != 0x25 }
        return String(decoding: bytes, as: UTF8.self)
    }()

    @Test func printableASCIIExceptPercentPassesThrough() {
        #expect(PercentEncoding.encode(Self.unreserved) == Self.unreserved)
        #expect(PercentEncoding.encode("") == "")
        #expect(PercentEncoding.encode("Entitlement 'pro' not found: user=42 (see https://x.y/z?a=b&c)") ==
            "Entitlement 'pro' not found: user=42 (see https://x.y/z?a=b&c)")
    }

    @Test(arguments: [
        ("%", "%25"),
        ("100%", "100%25"),
        ("%25", "%2525"),
        ("\n", "%0A"),
        ("\t", "%09"),
        ("\r\n", "%0D%0A"),
        ("\u{0}", "%00"),
        ("\u{1F}", "%1F"),
        ("\u{7F}", "%7F"),
        ("é", "%C3%A9"),
        ("a b%c", "a b%25c"),
        ("日本", "%E6%97%A5%E6%9C%AC"),
        ("😀", "%F0%9F%98%80"),
        ("line1\nline2 ok", "line1%0Aline2 ok"),
    ])
    func encodesEverythingElseAsUppercaseHex(input: String, expected: String) {
        #expect(PercentEncoding.encode(input) == expected)
        #expect(PercentEncoding.decode(expected) == input)
    }

    @Test func everySingleByteScalarIsEncodedPerSpec() {
        for value in UInt8(0)...0x7F {
            let input = String(UnicodeScalar(value))
            let encoded = PercentEncoding.encode(input)
            if (0x20...0x24).contains(value) || (0x26...0x7E).contains(value) {
                #expect(encoded == input, "byte \(value)")
            } else {
                let hex = String(value, radix: 16, uppercase: true)
                #expect(encoded == "%" + (hex.count == 1 ? "0" + hex : hex), "byte \(value)")
            }
        }
    }

    @Test func encodedOutputIsAlwaysPrintableASCII() {
        var generator = SeededRandomNumberGenerator(seed: 1)
        for _ in 0..<200 {
            let encoded = PercentEncoding.encode(Self.randomString(using: &generator))
            #expect(encoded.utf8.allSatisfy { (0x20...0x7E).contains($0) })
            // Every `%` introduces exactly two uppercase hex digits.
            let bytes = Array(encoded.utf8)
            for (index, byte) in bytes.enumerated() where byte == UInt8(ascii: "%") {
                #expect(index + 2 < bytes.count)
                if index + 2 < bytes.count {
                    #expect(bytes[(index + 1)...(index + 2)].allSatisfy { Array("0123456789ABCDEF".utf8).contains($0) })
                }
            }
        }
    }

    @Test(arguments: [
        ("%41", "A"),
        ("%c3%a9", "é"),
        ("%C3%a9", "é"),
        ("abc", "abc"),
        ("é raw", "é raw"),
        ("%", "%"),
        ("%4", "%4"),
        ("%zz", "%zz"),
        ("%4g", "%4g"),
        ("%g4", "%g4"),
        ("abc%", "abc%"),
        ("abc%4", "abc%4"),
        ("%%41", "%A"),
        ("%41%", "A%"),
        ("a%41", "aA"),
        ("%FF", "\u{FFFD}"),
        ("%C3", "\u{FFFD}"),
        ("x%C3%28y", "x\u{FFFD}(y"),
        ("%00", "\u{0}"),
    ])
    func decodeIsLenient(input: String, expected: String) {
        #expect(PercentEncoding.decode(input) == expected)
    }

    @Test func nonASCIIRoundTrips() {
        for text in ["Grüße, Jürgen", "Ошибка доступа", "权限被拒绝", "🔑🚫 denied", "\u{0301}e", "\u{10FFFF}"] {
            let encoded = PercentEncoding.encode(text)
            #expect(encoded != text)
            #expect(encoded.utf8.allSatisfy { $0 < 0x80 })
            #expect(PercentEncoding.decode(encoded) == text)
        }
    }

    @Test func randomStringsRoundTrip() {
        var generator = SeededRandomNumberGenerator(seed: 0x5EED)
        for _ in 0..<1_000 {
            let text = Self.randomString(using: &generator)
            #expect(PercentEncoding.decode(PercentEncoding.encode(text)) == text, "\(Array(text.unicodeScalars))")
        }
    }

    @Test func decodeKeepsEveryMalformedSequenceAsIs() {
        // No `%` in these inputs is followed by a hex digit, so decoding must be the identity.
        var generator = SeededRandomNumberGenerator(seed: 7)
        let alphabet = Array("%%%gz \u{7F}é-\u{1F511}".unicodeScalars)
        for _ in 0..<1_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &generator) { scalars.append(alphabet.randomElement(using: &generator)!) }
            let text = String(scalars)
            #expect(PercentEncoding.decode(text) == text, "\(text.debugDescription)")
        }
    }

    /// Mixes printable ASCII, `%`, control characters, BMP and astral scalars.
    static func randomString(using generator: inout SeededRandomNumberGenerator) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...24, using: &generator) {
            let scalar: UnicodeScalar
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: scalar = "%"
            case 1: scalar = UnicodeScalar(UInt8.random(in: 0...0x1F, using: &generator))
            case 2: scalar = UnicodeScalar(UInt32.random(in: 0x80...0xD7FF, using: &generator))!
            case 3: scalar = UnicodeScalar(UInt32.random(in: 0x1_0000...0x10_FFFF, using: &generator))!
            default: scalar = UnicodeScalar(UInt8.random(in: 0x20...0x7F, using: &generator))
            }
            scalars.append(scalar)
        }
        return String(scalars)
    }
}

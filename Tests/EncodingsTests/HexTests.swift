import Encodings
import Testing

@Suite struct HexTests {
    @Test func roundTripAndRejects() {
        let bytes: [UInt8] = [0x00, 0x0F, 0xA5, 0xFF]
        #expect(Hex.encode(bytes) == "000fa5ff")
        #expect(Hex.encode(bytes, uppercase: true) == "000FA5FF")
        #expect(Hex.encode([]) == "")
        #expect(Hex.decode("000FA5ff") == bytes)
        #expect(Hex.decode("000FA5ff"[...]) == bytes, "Substring input")
        #expect(Hex.decode("") == [])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        let all = (0...255).map(UInt8.init)
        #expect(Hex.decode(Hex.encode(all)) == all)
    }

    @Test func digitsAndValues() {
        let lower = Array("0123456789abcdef".utf8)
        let upper = Array("0123456789ABCDEF".utf8)
        for value in UInt8(0)...15 {
            #expect(Hex.digit(value) == lower[Int(value)])
            #expect(Hex.digit(value, uppercase: true) == upper[Int(value)])
            #expect(Hex.value(lower[Int(value)]) == value)
            #expect(Hex.value(upper[Int(value)]) == value)
        }
        for byte in UInt8(0)...255 where !lower.contains(byte) && !upper.contains(byte) {
            #expect(Hex.value(byte) == nil, "byte \(byte)")
        }
    }
}

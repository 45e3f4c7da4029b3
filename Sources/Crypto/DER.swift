/// The few DER encodings this module writes itself: certificate extension values and ECDSA signatures.
///
/// Writing them directly keeps the issuer free of OpenSSL's text configuration language and lets signature
/// verification convert JWS r||s without allocating OpenSSL objects.
enum DER {
    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var output: [UInt8] = [tag]
        let count = content.count
        if count < 0x80 {
            output.append(UInt8(count))
        } else {
            var lengthBytes: [UInt8] = []
            var remaining = count
            while remaining > 0 {
                lengthBytes.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            output.append(0x80 | UInt8(lengthBytes.count))
            output.append(contentsOf: lengthBytes)
        }
        output.append(contentsOf: content)
        return output
    }

    static func sequence(_ elements: [UInt8]...) -> [UInt8] { tlv(0x30, elements.flatMap { $0 }) }

    static func octetString(_ bytes: [UInt8]) -> [UInt8] { tlv(0x04, bytes) }

    static func boolean(_ value: Bool) -> [UInt8] { [0x01, 0x01, value ? 0xFF : 0x00] }

    /// A non-negative INTEGER from big-endian magnitude bytes: minimal length, with a 0x00 prefix when the top bit
    /// would otherwise read as a sign.
    static func unsignedInteger(_ magnitude: some Collection<UInt8>) -> [UInt8] {
        var content = Array(magnitude.drop { $0 == 0 })
        if content.isEmpty || content[0] & 0x80 != 0 { content.insert(0, at: 0) }
        return tlv(0x02, content)
    }

    static func unsignedInteger(_ value: Int) -> [UInt8] {
        precondition(value >= 0)
        return unsignedInteger(withUnsafeBytes(of: UInt64(value).bigEndian) { Array($0) })
    }

    /// A BIT STRING holding `firstByte` as named bits (bit 0 is 0x80), with DER's trailing zero bits removed.
    static func namedBits(_ firstByte: UInt8) -> [UInt8] {
        guard firstByte != 0 else { return [0x03, 0x01, 0x00] }
        return [0x03, 0x02, UInt8(firstByte.trailingZeroBitCount), firstByte]
    }
}

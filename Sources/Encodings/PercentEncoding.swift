/// Percent-encoding of `grpc-message` as PROTOCOL-HTTP2.md defines it.
///
/// Bytes 0x20–0x24 and 0x26–0x7E pass through; every other byte of the UTF-8 form, `%` included, becomes `%XX`.
public enum PercentEncoding {
    public static func encode(_ message: String) -> String {
        let utf8 = message.utf8
        if utf8.allSatisfy(passesThrough) { return message }
        var output: [UInt8] = []
        output.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if passesThrough(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                output.append(Hex.digit(byte >> 4, uppercase: true))
                output.append(Hex.digit(byte & 0x0F, uppercase: true))
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes leniently: a malformed `%` sequence is kept as is, and invalid UTF-8 is repaired, never rejected.
    public static func decode(_ encoded: String) -> String {
        let bytes = Array(encoded.utf8)
        guard bytes.contains(UInt8(ascii: "%")) else { return encoded }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = Hex.value(bytes[index + 1]), let low = Hex.value(bytes[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func passesThrough(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte <= 0x7E && byte != UInt8(ascii: "%")
    }
}

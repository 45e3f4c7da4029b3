
/// The spec's test vector (also in the Go and C# reference tests; recomputed with Python's hmac).
enum TestVector {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    static let key: [UInt8] = bytes("31f290f6bf06298aab4f08d43c3f082cf648a362da2da4b0")
    static let id = "msg_p5jXN8AQM9LWM0D4loKWxJek"
    static let timestamp: Int64 = 1_614_265_330
    static let body = Array(#"{"test": 2432232314}"#.utf8)
    static let signature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="

    static func bytes(_ hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    /// `whsec_` + standard base64 (padded) of `count` bytes 0, 1, 2...
    static func secret(bytes count: Int, padded: Bool = true) -> String {
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        let input = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        var text = ""
        var index = 0
        while index < input.count {
            let chunk = Array(input[index..<min(index + 3, input.count)])
            let group = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<(chunk.count + 1) { text.append(symbols[Int(group >> (18 - 6 * position) & 0x3F)]) }
            if padded { text += String(repeating: "=", count: 3 - chunk.count) }
            index += 3
        }
        return "whsec_" + text
    }
}

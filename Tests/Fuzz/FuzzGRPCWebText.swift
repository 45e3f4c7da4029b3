@testable import HTTP2Transport

/// libFuzzer target: the gRPC-Web text-mode request decoder never crashes, what it makes of a body does not depend on
/// how the body was split into reads, and a body that a client made by base64-encoding each flush on its own (padding
/// mid-body) decodes back to exactly the bytes it encoded.
private func decode(_ text: [UInt8], splitEvery step: Int) -> Result<[UInt8], GRPCWebTextError> {
    var decoder = GRPCWebTextDecoder()
    var bytes: [UInt8] = []
    var start = 0
    do throws(GRPCWebTextError) {
        while start < text.count {
            let end = min(text.count, start + step)
            bytes += try decoder.decode(text[start..<end])
            start = end
        }
        try decoder.finish()
        return .success(bytes)
    } catch {
        return .failure(error)
    }
}

private let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

/// Standard base64 with padding, as a browser client writes each flush.
private func base64(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    var index = bytes.startIndex
    while index < bytes.endIndex {
        let chunk = Array(bytes[index..<min(index + 3, bytes.endIndex)])
        let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
        for position in 0..<4 {
            out.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : UInt8(ascii: "="))
        }
        index += 3
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGRPCWebText(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let step = Int(data[0] % 32) + 1
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    // Any input as a text body: the same answer whatever the read size.
    let whole = decode(input, splitEvery: max(1, input.count))
    guard whole == decode(input, splitEvery: step) else { fatalError("the decoding depends on the read size \(step)") }
    // The input as binary, sent in flushes of `step` bytes each base64'd on its own: decoded back exactly.
    var text: [UInt8] = []
    var start = 0
    while start < input.count {
        text += base64(input[start..<min(input.count, start + step)])
        start += step
    }
    guard decode(text, splitEvery: step) == .success(input) else { fatalError("a per-flush body did not decode back") }
    return 0
}

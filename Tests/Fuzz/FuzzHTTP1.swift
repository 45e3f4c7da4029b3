import HTTP1

/// libFuzzer target: the HTTP/1.1 request parser never crashes, and the requests (or the error) it finds in a byte
/// stream do not depend on how the stream was split into reads.
private enum Outcome: Hashable {
    case request(HTTP1ParsedRequest)
    case error(HTTP1ParseError)
}

/// Everything the parser makes of `bytes` handed over in `pieces`; a parse error ends the connection.
private func parse(_ bytes: [UInt8], splitEvery step: Int) -> [Outcome] {
    var parser = HTTP1RequestParser(limits: HTTP1Limits())
    var outcomes: [Outcome] = []
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + step)
        parser.append(bytes[start..<end])
        start = end
        do throws(HTTP1ParseError) {
            while let request = try parser.nextRequest() { outcomes.append(.request(request)) }
        } catch {
            outcomes.append(.error(error))
            return outcomes
        }
    }
    return outcomes
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    // The first byte picks the read size; the rest is the stream.
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let whole = parse(bytes, splitEvery: max(1, bytes.count))
    let pieces = parse(bytes, splitEvery: Int(data[0] % 64) + 1)
    guard whole == pieces else {
        fatalError("the parse depends on the read size \(Int(data[0] % 64) + 1): \(whole) vs \(pieces)")
    }
    return 0
}

import HTTP1

/// libFuzzer target: the HTTP/1.1 response parser (what the outbound client makes of a remote server's bytes) never
/// crashes, stays within its limits, and finds the same response (or the same error) however the bytes were split
/// into reads.
private enum Outcome: Hashable {
    case response(HTTPClientResponse, keepsOpen: Bool, consumedAll: Bool)
    case incomplete
    case error(HTTPClientError.Code)
}

private func parse(_ bytes: [UInt8], splitEvery step: Int, limits: HTTP1ResponseParser.Limits) -> Outcome {
    var parser = HTTP1ResponseParser(limits: limits)
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + step)
        do {
            let progress = try bytes[start..<end].withUnsafeBytes { try parser.parse($0) }
            if case .complete(let consumed) = progress {
                let response = parser.response
                precondition(response.body.count <= limits.maxBodyBytes, "a body beyond the limit was accepted")
                return .response(response, keepsOpen: parser.keepsConnectionOpen, consumedAll: start + consumed == bytes.count)
            }
        } catch let error as HTTPClientError {
            return .error(error.code)
        } catch {
            fatalError("the parser threw something other than HTTPClientError: \(error)")
        }
        start = end
    }
    return parser.connectionClosed()
        ? .response(parser.response, keepsOpen: parser.keepsConnectionOpen, consumedAll: true) : .incomplete
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1Response(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    // The first byte picks the read size; the rest is the stream. Small limits, so they are reached.
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let limits = HTTP1ResponseParser.Limits(maxHeadBytes: 512, maxBodyBytes: 1024)
    let whole = parse(bytes, splitEvery: max(1, bytes.count), limits: limits)
    let pieces = parse(bytes, splitEvery: Int(data[0] % 64) + 1, limits: limits)
    guard whole == pieces else {
        fatalError("the parse depends on the read size \(Int(data[0] % 64) + 1): \(whole) vs \(pieces)")
    }
    return 0
}

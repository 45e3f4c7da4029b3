import RPCCore

// How the interop services shape their responses from a request's parameters, the same for ours and grpc's:
// bodies of `size` zero bytes, and `interval_us` of sleep before a streamed response.

/// `size` zero bytes, the body of every interop response; a negative size is the client's mistake.
func interopZeroBody(size: Int32) throws(RPCError) -> [UInt8] {
    guard size >= 0 else {
        throw RPCError(code: .invalidArgument, message: "Response size \(size) is negative.")
    }
    return [UInt8](repeating: 0, count: Int(size))
}

/// Sleeps `intervalUs` microseconds before one streamed response ("Observe ResponseParameters.interval_us":
/// relative to the previous response, so delays add up). Throws `CancellationError` when the call goes away.
func interopDelayBeforeResponse(intervalUs: Int32) async throws {
    guard intervalUs > 0 else { return }
    try await Task.sleep(for: .microseconds(Int(intervalUs)))
}

/// Reads a client-streaming call to its end and adds up its payload sizes (StreamingInputCall's
/// `aggregated_payload_size`); `payloadSize` may throw to refuse a request.
func interopAggregatedPayloadSize<Request>(
    of requests: RequestMessages<Request>,
    payloadSize: (Request) throws -> Int
) async throws -> Int32 {
    var total = 0
    for try await request in requests {
        total += try payloadSize(request)
    }
    guard let aggregated = Int32(exactly: total) else {
        throw RPCError(code: .outOfRange, message: "Aggregated payload size \(total) exceeds int32.")
    }
    return aggregated
}

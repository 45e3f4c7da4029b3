import RPCCore
import Testing

private struct EntitlementMissing: RPCErrorConvertible {
    var rpcError: RPCError {
        var metadata = Metadata()
        metadata.addString("pro", forKey: "missing-entitlement")
        return RPCError(code: .permissionDenied, message: "Entitlement 'pro' is required.", metadata: metadata)
    }
}

private struct SecretFailure: Error, CustomStringConvertible {
    var description: String { "db password hunter2 rejected at 10.0.0.7" }
}

@Suite struct RPCErrorTests {
    @Test func rpcErrorPassesThroughUnchanged() {
        var metadata = Metadata()
        metadata.addBinary([1, 2], forKey: "detail-bin")
        let original = RPCError(code: .notFound, message: "No such account.", metadata: metadata, cause: SecretFailure())
        let mapped = RPCError(from: original)
        #expect(mapped.code == .notFound)
        #expect(mapped.message == "No such account.")
        #expect(mapped.metadata == metadata)
        #expect(mapped.cause is SecretFailure)
    }

    @Test func convertibleErrorsUseTheirOwnStatus() {
        let mapped = RPCError(from: EntitlementMissing())
        #expect(mapped.code == .permissionDenied)
        #expect(mapped.message == "Entitlement 'pro' is required.")
        #expect(mapped.metadata[string: "missing-entitlement"] == "pro")
    }

    @Test func cancellationBecomesCancelled() {
        let mapped = RPCError(from: CancellationError())
        #expect(mapped.code == .cancelled)
        #expect(!mapped.message.isEmpty)
        #expect(mapped.cause is CancellationError)
    }

    @Test func anythingElseBecomesUnknownWithoutLeakingItsDescription() {
        let mapped = RPCError(from: SecretFailure())
        #expect(mapped.code == .unknown)
        #expect(!mapped.message.contains("hunter2"))
        #expect(!mapped.message.contains("10.0.0.7"))
        #expect(!mapped.description.contains("hunter2"))
        #expect(mapped.metadata.isEmpty)
        #expect(mapped.cause is SecretFailure, "kept for logs")
    }

    @Test func defaultsAndDescription() {
        let error = RPCError(code: .invalidArgument, message: "bad id")
        #expect(error.metadata.isEmpty)
        #expect(error.cause == nil)
        #expect(error.description == "INVALID_ARGUMENT: bad id")
        #expect("\(RPCError(code: .init(rawValue: 99), message: "x"))" == "CODE_99: x")
    }

    @Test func codeValuesAndNames() {
        let codes: [(RPCError.Code, Int, String)] = [
            (.ok, 0, "OK"), (.cancelled, 1, "CANCELLED"), (.unknown, 2, "UNKNOWN"),
            (.invalidArgument, 3, "INVALID_ARGUMENT"), (.deadlineExceeded, 4, "DEADLINE_EXCEEDED"),
            (.notFound, 5, "NOT_FOUND"), (.alreadyExists, 6, "ALREADY_EXISTS"),
            (.permissionDenied, 7, "PERMISSION_DENIED"), (.resourceExhausted, 8, "RESOURCE_EXHAUSTED"),
            (.failedPrecondition, 9, "FAILED_PRECONDITION"), (.aborted, 10, "ABORTED"),
            (.outOfRange, 11, "OUT_OF_RANGE"), (.unimplemented, 12, "UNIMPLEMENTED"), (.internal, 13, "INTERNAL"),
            (.unavailable, 14, "UNAVAILABLE"), (.dataLoss, 15, "DATA_LOSS"), (.unauthenticated, 16, "UNAUTHENTICATED"),
        ]
        for (code, raw, name) in codes {
            #expect(code.rawValue == raw)
            #expect(code.description == name)
            #expect(RPCError.Code(rawValue: raw) == code)
        }
        #expect(Set(codes.map(\.0)).count == 17)
        #expect(RPCError.Code(rawValue: 17).description == "CODE_17")
        #expect(RPCError.Code(rawValue: -1).description == "CODE_-1")
    }
}

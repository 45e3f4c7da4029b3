import RPCCore
import Testing

@Suite struct RPCStatusTests {
    @Test func okHasNoMessageOrTrailers() {
        #expect(RPCStatus.ok.code == .ok)
        #expect(RPCStatus.ok.message == "")
        #expect(RPCStatus.ok.trailers.isEmpty)
        #expect(RPCStatus(code: .ok) == .ok)
    }

    @Test func statusFromErrorCarriesCodeMessageAndMetadataAsTrailers() {
        var metadata = Metadata()
        metadata.addString("v", forKey: "k")
        let status = RPCStatus(RPCError(code: .aborted, message: "retry", metadata: metadata))
        #expect(status == RPCStatus(code: .aborted, message: "retry", trailers: metadata))
        #expect(status != RPCStatus(code: .aborted, message: "retry"))
    }

    @Test func addingPutsTheGivenTrailersFirst() {
        let status = RPCStatus(code: .notFound, message: "m", trailers: Metadata([("own", "1")]))
        let merged = status.adding(Metadata([("added", "a"), ("Own", "0")]))
        #expect(merged == RPCStatus(code: .notFound, message: "m", trailers: Metadata([("added", "a"), ("own", "0"), ("own", "1")])))
        #expect(status.trailers == Metadata([("own", "1")]), "the original is unchanged")
        #expect(status.adding(Metadata()) == status)
        #expect(RPCStatus.ok.adding(Metadata([("k", "v")])).trailers == Metadata([("k", "v")]))
    }
}

import Foundation
import RPCCore
import Testing

@testable import HTTP1
@testable import HTTP2Transport

@Suite("gRPC-Web framing")
struct GRPCWebFramingTests {
    // MARK: Content types

    @Test(arguments: [
        ("application/grpc-web", GRPCWebMode.binary), ("application/grpc-web+proto", .binary),
        ("application/grpc-web-text", .text), ("application/grpc-web-text+proto", .text),
        ("application/grpc-web+proto; charset=utf-8", .binary),
    ])
    func recognisedContentTypes(_ type: String, _ mode: GRPCWebMode) {
        #expect(GRPCWebMode(contentType: type.utf8) == mode)
    }

    @Test(arguments: [
        "application/grpc", "application/grpc+proto", "application/grpc-web+json", "application/grpc-webx", "text/plain",
        "application/grpc-web-text+json", "application/grpc-web-textual", "application/grpc-web+proto+proto", "application/grpc-we",
    ])
    func otherContentTypesAreNotGRPCWeb(_ type: String) {
        #expect(GRPCWebMode(contentType: type.utf8) == nil)
    }

    /// The web types share gRPC's prefix: a header block must not take them for native gRPC.
    @Test func headerBlockTellsWebFromGRPC() {
        var web = HeaderBlock(http1: HTTPRequest(method: "POST", path: "/a.B/C", headers: ["content-type": "application/grpc-web-text"]))
        #expect(web.isGRPC && web.framing == .grpcWeb(.text))
        web = HeaderBlock(http1: HTTPRequest(method: "POST", path: "/a.B/C", headers: ["content-type": "application/grpc"]))
        #expect(web.isGRPC && web.framing == nil)
    }

    // MARK: Trailers frame

    @Test func trailersFrameIsExact() {
        var trailers = Metadata()
        trailers.add(.string("r1"), forKey: "x-request-id")
        let status = RPCStatus(code: .notFound, message: "no such user: ann%", trailers: trailers)
        let frame = GRPCWebTrailers.frame(status, mode: .binary)
        let block = Array("grpc-status: 5\r\ngrpc-message: no such user: ann%25\r\nx-request-id: r1\r\n".utf8)
        #expect(frame == [0x80, 0, 0, 0, UInt8(block.count)] + block)
    }

    @Test func okTrailersFrame() {
        #expect(GRPCWebTrailers.frame(.ok, mode: .binary) == [0x80, 0, 0, 0, 16] + Array("grpc-status: 0\r\n".utf8))
    }

    /// Binary metadata is base64 in binary mode and raw in text mode, where the whole frame is base64'd already.
    @Test func binaryTrailerValues() {
        var trailers = Metadata()
        trailers.add(.binary([0xFF, 0x00, 0x41]), forKey: "trace-bin")
        let status = RPCStatus(code: .ok, trailers: trailers)
        let binary = GRPCWebTrailers.frame(status, mode: .binary)
        #expect(Array(binary[5...]) == Array("grpc-status: 0\r\ntrace-bin: /wBB\r\n".utf8))
        let text = GRPCWebTrailers.frame(status, mode: .text)
        #expect(Array(text[5...]) == Array("grpc-status: 0\r\ntrace-bin: ".utf8) + [0xFF, 0x00, 0x41] + Array("\r\n".utf8))
    }

    // MARK: Text-mode request decoding

    @Test func decodesAcrossArbitraryCuts() throws {
        let message = Array("a message long enough to span several groups".utf8)
        let text = Array(Data(MessageFraming.frame(message)).base64EncodedString().utf8)
        for cut in 0...text.count {
            var decoder = GRPCWebTextDecoder()
            let decoded = try decoder.decode(text[..<cut]) + decoder.decode(text[cut...])
            try decoder.finish()
            #expect(decoded == MessageFraming.frame(message))
        }
    }

    /// Each flush is base64'd on its own, so padding can end a group in the middle of the body.
    @Test func paddingMidBody() throws {
        var decoder = GRPCWebTextDecoder()
        let decoded = try decoder.decode(Array("AA==AAE=AAEC".utf8))
        try decoder.finish()
        #expect(decoded == [0x00, 0x00, 0x01, 0x00, 0x01, 0x02])
    }

    @Test(arguments: ["AA-=", "A===", "A=AA", "AA\r\n", "AAAA AAA"])
    func invalidCharactersOrPadding(_ body: String) {
        var decoder = GRPCWebTextDecoder()
        #expect(throws: GRPCWebTextError.invalidBase64) { _ = try decoder.decode(Array(body.utf8)) }
    }

    @Test func bodyEndingInsideAGroup() throws {
        var decoder = GRPCWebTextDecoder()
        #expect(try decoder.decode(Array("AAAAAA".utf8)) == [0, 0, 0])
        #expect(throws: GRPCWebTextError.truncatedGroup) { try decoder.finish() }
    }

    @Test func textErrorsAreInternal() {
        #expect(GRPCWebTextError.invalidBase64.rpcError.code == .internal)
        #expect(GRPCWebTextError.truncatedGroup.rpcError.code == .internal)
    }
}

@testable import EntitlementsKit
import Testing

@Suite struct GRPCWebFrameDecoderTests {
    static func frame(_ flags: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = UInt32(payload.count)
        return [flags, UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
            + payload
    }

    static let body =
        frame(0, [0x08, 0x01]) + frame(0, []) + frame(0, Array(repeating: 7, count: 300))
        + frame(0x80, Array("grpc-status: 0\r\ngrpc-message: all%20good\r\nX-Extra:  v \r\n".utf8))

    @Test func framesComeOutWhateverPiecesTheBodyArrivesIn() throws {
        let expected: [GRPCWebFrameDecoder.Frame] = [
            .message([0x08, 0x01]), .message([]), .message(Array(repeating: 7, count: 300)),
            .trailers(["grpc-status": "0", "grpc-message": "all%20good", "x-extra": "v"]),
        ]
        for size in [1, 2, 3, 5, 7, 64, Self.body.count] {
            var decoder = GRPCWebFrameDecoder()
            var frames: [GRPCWebFrameDecoder.Frame] = []
            var index = 0
            while index < Self.body.count {
                frames += try decoder.append(Self.body[index..<min(index + size, Self.body.count)])
                index += size
            }
            #expect(frames == expected, "pieces of \(size)")
            #expect(!decoder.hasPartialFrame)
        }
    }

    @Test func aCutBodyLeavesAPartialFrame() throws {
        var decoder = GRPCWebFrameDecoder()
        #expect(try decoder.append(Self.body.prefix(9)) == [.message([0x08, 0x01])])
        #expect(decoder.hasPartialFrame)
    }

    @Test func oversizedAndCompressedFramesAreRefused() {
        var small = GRPCWebFrameDecoder(maxFrameLength: 10)
        #expect(throws: GRPCWebFrameDecoder.Malformed.self) { try small.append(Self.frame(0, Array(repeating: 0, count: 11))) }
        var decoder = GRPCWebFrameDecoder()
        #expect(throws: GRPCWebFrameDecoder.Malformed.self) { try decoder.append(Self.frame(1, [1])) }
    }

    /// A declared length at the top of 32 bits is refused as too large (a 32-bit Int would have read it negative).
    @Test(arguments: [UInt32.max, UInt32(Int32.max) + 1, UInt32(Int32.max), UInt32(4 << 20) + 1])
    func aHugeDeclaredLengthIsRefused(length: UInt32) {
        var decoder = GRPCWebFrameDecoder()
        let prefix: [UInt8] = [0] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: length >> ($0 * 8)) }
        #expect(throws: GRPCWebFrameDecoder.Malformed.self) { try decoder.append(prefix + [1, 2, 3]) }
    }

    @Test func statusesAreReadFromTrailersAndHTTPCodes() {
        #expect(GRPCWebStatus.error(from: ["grpc-status": "0"]) == nil)
        #expect(GRPCWebStatus.error(from: [:]) == nil)
        let denied = GRPCWebStatus.error(from: ["grpc-status": "16", "grpc-message": "Unknown%20key%3A%20%E2%9C%93"])
        #expect(denied == EntitlementsError(code: .unauthenticated, message: "Unknown key: ✓"))
        #expect(GRPCWebStatus.error(from: ["grpc-status": "99"])?.code == .unknown)
        #expect(GRPCWebStatus.error(from: ["grpc-status": "x"])?.code == .unknown)
        #expect(GRPCWebStatus.error(httpStatus: 404).code == .unimplemented)
        #expect(GRPCWebStatus.error(httpStatus: 503).code == .unavailable)
        #expect(GRPCWebStatus.error(httpStatus: 401).code == .unauthenticated)
        #expect(GRPCWebStatus.error(httpStatus: 500).code == .unknown)
    }
}

import Foundation
import HTTP1
import RPCCore
import Testing

@testable import HTTP2Transport

@Suite("Connect protocol: content types, status, request headers, GET queries")
struct ConnectProtocolTests {
    @Test(arguments: [
        ("application/proto", ConnectCodec.proto), ("application/json", .json), ("application/json; charset=utf-8", .json),
        ("Application/JSON;charset=\"UTF-8\"", .json),
    ])
    func unaryContentTypes(_ type: String, _ codec: ConnectCodec) {
        #expect(ConnectCodec(unaryContentType: type) == codec)
    }

    @Test(arguments: ["application/json; charset=latin1", "application/protobuf", "application/connect+proto", "text/json"])
    func notUnaryContentTypes(_ type: String) {
        #expect(ConnectCodec(unaryContentType: type) == nil)
    }

    @Test func streamingContentTypes() {
        #expect(BodyFraming(contentType: "application/connect+proto".utf8) == .connect(.proto))
        #expect(BodyFraming(contentType: "application/connect+json;charset=utf-8".utf8) == .connect(.json))
        #expect(BodyFraming(contentType: "application/connect+protobuf".utf8) == nil)
        #expect(BodyFraming(contentType: "application/connect+thrift".utf8) == nil)
        #expect(BodyFraming(contentType: "application/grpc-web".utf8) == .grpcWeb(.binary))
        #expect(BodyFraming(contentType: "application/grpc".utf8) == nil)
    }

    /// The amended table of Connect's RFC 003.
    @Test func httpStatusOfEachCode() {
        let expected = [200, 499, 500, 400, 504, 404, 409, 403, 429, 400, 409, 400, 501, 500, 503, 500, 401]
        #expect((0...16).map { ConnectStatus.httpStatus(RPCError.Code(rawValue: $0)) } == expected)
        #expect(ConnectStatus.httpStatus(RPCError.Code(rawValue: 99)) == 500)
        #expect(ConnectStatus.codeName(RPCError.Code(rawValue: 99)) == "unknown")
        #expect(ConnectStatus.codeName(.cancelled) == "canceled")
    }

    @Test func endOfStreamMessage() throws {
        var trailers = Metadata()
        trailers.add(.string("a"), forKey: "x-one")
        trailers.add(.string("b"), forKey: "x-one")
        trailers.add(.binary([0xFF, 0x00]), forKey: "x-two-bin")
        let frame = ConnectStatus.endOfStreamFrame(RPCStatus(code: .notFound, message: "no \"such\" user", trailers: trailers))
        #expect(frame[0] == 0x02)
        let length = Int(frame[1]) << 24 | Int(frame[2]) << 16 | Int(frame[3]) << 8 | Int(frame[4])
        #expect(length == frame.count - 5)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(frame[5...])) as? [String: Any])
        let error = try #require(json["error"] as? [String: String])
        #expect(error == ["code": "not_found", "message": "no \"such\" user"])
        let metadata = try #require(json["metadata"] as? [String: [String]])
        #expect(metadata == ["x-one": ["a", "b"], "x-two-bin": ["/wA"]])
        #expect(ConnectStatus.endOfStreamFrame(.ok) == [0x02, 0, 0, 0, 2] + Array("{}".utf8))
    }

    @Test func requestHeaders() throws {
        func headers(_ fields: [String: String], encoding: String? = "content-encoding") throws(RPCError) -> ConnectRequestHeaders {
            let request = HTTPRequest(method: "POST", path: "/p.S/M", headers: HTTPHeaders(fields.map { ($0.key, $0.value) }))
            return try ConnectRequestHeaders(head: HeaderBlock(http1: request), encodingHeader: encoding)
        }
        #expect(try headers(["connect-timeout-ms": "1500"]).timeout == .milliseconds(1500))
        #expect(try headers(["connect-timeout-ms": "9999999999"]).timeout == .milliseconds(9_999_999_999))
        #expect(try headers(["content-encoding": "GZIP"]).encoding == "gzip")
        #expect(try headers(["content-encoding": "identity"]).encoding == nil)
        #expect(try headers(["content-encoding": "gzip"], encoding: nil).encoding == nil)
        for bad in ["", "12345678901", "-1", "1.5", "1e3", " 10"] {
            #expect(throws: RPCError.self, "\(bad)") { try headers(["connect-timeout-ms": bad]) }
        }
        #expect(throws: RPCError.self) { try headers(["connect-protocol-version": "2"]) }
        #expect(try headers(["connect-protocol-version": "1"]).timeout == nil)
    }

    @Test func getQueries() throws {
        let json = try ConnectGetQuery("encoding=json&message=%7B%22a%22%3A+1%7D&connect=v1")
        #expect(json.encoding == "json" && json.message == Array("{\"a\": 1}".utf8) && json.compression == nil)
        let binary = try ConnectGetQuery("message=_wA&base64=1&encoding=proto&compression=gzip")
        #expect(binary.message == [0xFF, 0x00] && binary.compression == "gzip")
        let raw = try ConnectGetQuery("encoding=proto&message=%FF%00")
        #expect(raw.message == [0xFF, 0x00])
        for bad in ["encoding=json", "message=e30", "encoding=json&message=%G0", "encoding=json&message=e30&connect=v2",
                    "encoding=proto&base64=1&message=%2B%2F"] {
            #expect(throws: RPCError.self, "\(bad)") { try ConnectGetQuery(bad) }
        }
    }
}

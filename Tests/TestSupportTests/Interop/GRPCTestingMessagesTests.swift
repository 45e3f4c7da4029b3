import Encodings
import ProtobufWire
import Testing
import TestSupport

/// The grpc.testing codecs against encodings made by protoc (`protoc --encode`) from grpc's messages.proto, so a
/// wrong field number or wire type fails here rather than in an interop client.
@Suite struct GRPCTestingMessagesTests {
    @Test func simpleRequestMatchesProtoc() throws {
        // response_size: 314159 payload { body: "\0\0\0" } fill_username: true fill_oauth_scope: true
        // response_compressed { value: true } response_status { code: 2 message: "test status message" }
        // expect_compressed { value: false } fill_server_id: true fill_grpclb_route_type: true
        let protoc = hex(
            "10af96131a05120300000020012801320208013a17080212137465737420737461747573206d657373616765420048015001"
        )
        var request = GRPCTesting.SimpleRequest()
        request.responseSize = 314_159
        request.payload = GRPCTesting.Payload(body: [0, 0, 0])
        request.fillUsername = true
        request.fillOauthScope = true
        request.responseCompressed = GRPCTesting.BoolValue(true)
        request.responseStatus = GRPCTesting.EchoStatus(code: 2, message: "test status message")
        request.expectCompressed = GRPCTesting.BoolValue(false)
        request.fillServerID = true
        request.fillGrpclbRouteType = true
        #expect(request.serializedBytes() == protoc)
        #expect(try GRPCTesting.SimpleRequest(serializedBytes: protoc) == request)
    }

    @Test func simpleResponseMatchesProtoc() throws {
        // payload { body: "\0\0" } username: "u" oauth_scope: "s" server_id: "i"
        // grpclb_route_type: GRPCLB_ROUTE_TYPE_BACKEND hostname: "h"
        let protoc = hex("0a04120200001201751a01732201692802320168")
        var response = GRPCTesting.SimpleResponse(payload: GRPCTesting.Payload(body: [0, 0]))
        response.username = "u"
        response.oauthScope = "s"
        response.serverID = "i"
        response.grpclbRouteType = .backend
        response.hostname = "h"
        #expect(response.serializedBytes() == protoc)
        #expect(try GRPCTesting.SimpleResponse(serializedBytes: protoc) == response)
    }

    @Test func streamingInputMessagesMatchProtoc() throws {
        // payload { body: "\0" } expect_compressed { value: true }
        let requestBytes = hex("0a0312010012020801")
        var request = GRPCTesting.StreamingInputCallRequest(payload: GRPCTesting.Payload(body: [0]))
        request.expectCompressed = GRPCTesting.BoolValue(true)
        #expect(request.serializedBytes() == requestBytes)
        #expect(try GRPCTesting.StreamingInputCallRequest(serializedBytes: requestBytes) == request)

        // aggregated_payload_size: 74922
        let responseBytes = hex("08aac904")
        let response = GRPCTesting.StreamingInputCallResponse(aggregatedPayloadSize: 74_922)
        #expect(response.serializedBytes() == responseBytes)
        #expect(try GRPCTesting.StreamingInputCallResponse(serializedBytes: responseBytes) == response)
    }

    @Test func streamingOutputRequestMatchesProtoc() throws {
        // response_parameters { size: 31415 interval_us: 1000 }
        // response_parameters { size: 9 compressed { value: true } }
        // payload { body: "\0" } response_status { code: 2 message: "m" }
        let protoc = hex("120708b7f50110e807120608091a0208011a031201003a05080212016d")
        var compressed = GRPCTesting.ResponseParameters(size: 9)
        compressed.compressed = GRPCTesting.BoolValue(true)
        var request = GRPCTesting.StreamingOutputCallRequest(
            responseParameters: [GRPCTesting.ResponseParameters(size: 31_415, intervalUs: 1_000), compressed],
            payload: GRPCTesting.Payload(body: [0])
        )
        request.responseStatus = GRPCTesting.EchoStatus(code: 2, message: "m")
        #expect(request.serializedBytes() == protoc)
        #expect(try GRPCTesting.StreamingOutputCallRequest(serializedBytes: protoc) == request)
    }

    /// grpc's clients read `payload.type` of every response, so an empty payload must still be on the wire.
    @Test func emptyPayloadIsStillWritten() throws {
        let response = GRPCTesting.StreamingOutputCallResponse(payload: GRPCTesting.Payload(body: []))
        #expect(response.serializedBytes() == hex("0a00"))
        #expect(try GRPCTesting.StreamingOutputCallResponse(serializedBytes: [0x0A, 0x00]).payload != nil)
        #expect(try GRPCTesting.StreamingOutputCallResponse(serializedBytes: []).payload == nil)
    }

    /// Fields newer than our codecs (SimpleRequest.orca_per_query_report = 11) survive decode and re-encode.
    @Test func newerFieldsAreKept() throws {
        let bytes = hex("1001" + "5a09" + "09000000000000f03f")
        let request = try GRPCTesting.SimpleRequest(serializedBytes: bytes)
        #expect(request.responseSize == 1)
        #expect(request.serializedBytes() == bytes)
    }
}

private func hex(_ string: String) -> [UInt8] { Hex.decode(string)! }

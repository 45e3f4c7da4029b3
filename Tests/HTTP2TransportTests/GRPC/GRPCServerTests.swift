import HTTP2Transport
import ProtobufWire
import RPCCore
import Testing
import TestSupport

/// The server and the Swift client over loopback, with the interop test service.
@Suite("gRPC server over loopback")
struct GRPCServerTests {
    let service = InteropTestService()

    private func path(_ method: String) -> String { "/\(InteropTestService.serviceName)/\(method)" }

    private func unary<Response: ProtoMessage>(
        _ client: GRPCClient, _ method: String, _ request: some ProtoMessage, metadata: Metadata = Metadata(),
        timeout: Duration? = nil
    ) async throws -> Response {
        let call = client.call(path: path(method), request: request.serializedBytes(), metadata: metadata, timeout: timeout)
        return try Response(serializedBytes: try await call.singleMessage())
    }

    @Test func unaryRoundTripOverCleartextAndTLS() async throws {
        let certificates = try TestCertificates()
        let server = try RunningServer(services: [service]) {
            $0.tls = .init(certificatePath: certificates.certificatePath, privateKeyPath: certificates.privateKeyPath)
            $0.allowCleartext = true
        }
        defer { server.stop() }
        for tls in [nil, GRPCClientConfiguration.TLS(trustedCertificatesPath: certificates.certificatePath)] {
            let client = try server.makeClient(tls: tls)
            var request = Interop.SimpleRequest()
            request.responseSize = 70_000
            request.payload = [1, 2, 3]
            let response: Interop.SimpleResponse = try await unary(client, "UnaryCall", request)
            #expect(response.payload == [UInt8](repeating: 0, count: 70_000))
        }
    }

    @Test func serverStreamDeliversEveryMessageInOrder() async throws {
        let server = try RunningServer(services: [service])
        defer { server.stop() }
        let client = try server.makeClient()
        var request = Interop.StreamingOutputCallRequest()
        request.responseParameters = (1...300).map { Interop.ResponseParameters(size: Int32($0), intervalUs: 0) }
        var sizes: [Int] = []
        for try await bytes in client.call(path: path("StreamingOutputCall"), request: request.serializedBytes()) {
            sizes.append(try Interop.StreamingOutputCallResponse(serializedBytes: bytes).payload.count)
        }
        #expect(sizes == Array(1...300))
    }

    @Test func statusCodeAndNonASCIIMessageRoundTrip() async throws {
        let server = try RunningServer(services: [service])
        defer { server.stop() }
        let client = try server.makeClient()
        let message = "\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈 and 100%\t\n"
        var request = Interop.SimpleRequest()
        request.responseStatus = Interop.EchoStatus(code: 2, message: message)
        let error = await #expect(throws: RPCError.self) {
            let _: Interop.SimpleResponse = try await unary(client, "UnaryCall", request)
        }
        #expect(error?.code == .unknown)
        #expect(error?.message == message)
    }

    @Test func unknownServiceAndMethodAreUnimplemented() async throws {
        let server = try RunningServer(services: [service])
        defer { server.stop() }
        let client = try server.makeClient()
        for path in ["/no.such.Service/Call", self.path("NoSuchMethod")] {
            let error = await #expect(throws: RPCError.self) {
                _ = try await client.call(path: path, request: []).singleMessage()
            }
            #expect(error?.code == .unimplemented)
        }
    }

    @Test func customMetadataIsEchoedIncludingBinary() async throws {
        let server = try RunningServer(services: [service])
        defer { server.stop() }
        let client = try server.makeClient()
        var metadata = Metadata()
        metadata.addString("test_initial_metadata_value", forKey: InteropTestService.echoInitialKey)
        metadata.addBinary([0xAB, 0xAB, 0xAB, 0x00, 0xFF], forKey: InteropTestService.echoTrailingKey)
        let call = client.call(path: path("EmptyCall"), request: [], metadata: metadata)
        _ = try await call.singleMessage()
        let headers = try await call.responseHeaders()
        #expect(headers[string: InteropTestService.echoInitialKey] == "test_initial_metadata_value")
        #expect(call.status?.trailers[binary: InteropTestService.echoTrailingKey] == [[0xAB, 0xAB, 0xAB, 0x00, 0xFF]])
    }

    @Test func deadlineCancelsTheSleepingHandler() async throws {
        let server = try RunningServer(services: [service])
        defer { server.stop() }
        let client = try server.makeClient()
        var request = Interop.SleepRequest()
        request.milliseconds = 5_000
        request.cancellationToken = "deadline"
        let error = await #expect(throws: RPCError.self) {
            let _: Interop.Empty = try await unary(client, "Sleep", request, timeout: .milliseconds(100))
        }
        #expect(error?.code == .deadlineExceeded)
        let report = try await waitForCancellation(client, token: "deadline")
        #expect(report.cancelled)
    }

    @Test func clientCancellationReachesTheStreamingHandler() async throws {
        let server = try RunningServer(services: [service])
        defer { server.stop() }
        let client = try server.makeClient()
        var request = Interop.StreamingOutputCallRequest()
        request.cancellationToken = "cancel-after-first"
        request.responseParameters = (0..<100).map { _ in Interop.ResponseParameters(size: 10, intervalUs: 50_000) }
        let call = client.call(path: path("StreamingOutputCall"), request: request.serializedBytes())
        var iterator = call.makeAsyncIterator()
        #expect(try await iterator.next() != nil)
        call.cancel()
        let report = try await waitForCancellation(client, token: "cancel-after-first")
        #expect(report.cancelled)
    }

    private func waitForCancellation(_ client: GRPCClient, token: String) async throws -> Interop.CancellationReport {
        // Up to ten seconds: a loaded machine may be slow to run the cancelled handler's last steps.
        for _ in 0..<500 {
            var query = Interop.CancellationQuery()
            query.token = token
            let report: Interop.CancellationReport? = try? await unary(client, "GetCancellation", query)
            if let report, report.finished { return report }
            try await Task.sleep(for: .milliseconds(20))
        }
        return Interop.CancellationReport()
    }
}

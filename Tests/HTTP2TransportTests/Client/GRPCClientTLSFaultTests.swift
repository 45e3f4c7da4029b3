import HTTP1
import HTTP2Transport
import ProtobufWire
import RPCCore
import Testing
import TestSupport

/// A gRPC client has one connection at a time, except while a closed one drains its streams beside its
/// replacement, both on the client's event-loop thread. OpenSSL's error queue belongs to the thread: when the
/// replacement's TLS session fails, nothing it leaves there may be read by the draining connection's
/// `SSL_get_error` as its own (`SSL_shutdown` after a fatal error queued one, and ended the draining stream).
@Suite struct GRPCClientTLSFaultTests {
    private static let rounds = 6
    /// Every way a TLS peer can fail a gRPC connection (an HTTP/1.1 answer means nothing to this client).
    private static let failingModes = MisbehavingTLSPeers.Mode.allCases.filter {
        $0 != .relay && $0 != .answerThenWithoutCloseNotify
    }
    private static let watch = MethodDescriptor(service: "entitlementd.test.Draining", method: "Watch")

    @Test func aDrainingStreamOutlivesItsReplacementFailingTLS() async throws {
        let certificates = try TestCertificates()
        let steps = StreamSteps()
        var router = RPCRouter()
        // Three messages, each after the test allows it (the first at once), so that each arrives in a read of
        // its own.
        router.registerServerStreaming(Self.watch) {
            (_: Interop.Empty, writer: ResponseWriter<Interop.Empty>, context) in
            let stream = context.metadata[string: "stream"] ?? ""
            try await writer.write(Interop.Empty())
            await steps.next(stream)
            try await writer.write(Interop.Empty())
            await steps.next(stream)
        }
        let server = try RunningServer(router: router, httpRouter: HTTPRouter(HTTPRouter.Builder())) {
            $0.tls = .init(certificatePath: certificates.certificatePath, privateKeyPath: certificates.privateKeyPath)
        }
        defer { server.stop() }
        // One address for the client: its connections alternate between the healthy server and a failing peer.
        let peers = try await MisbehavingTLSPeers(
            listeners: ["grpc": Self.failingModes.flatMap { [.relay, $0] }], certificates: certificates,
            relayTo: server.port)
        let client = try GRPCClient(
            configuration: .init(
                host: "127.0.0.1", port: peers.ports["grpc"] ?? 0,
                tls: .init(trustedCertificatesPath: certificates.certificatePath)))

        for round in 1...Self.rounds {
            for mode in Self.failingModes {
                let stream = "round \(round), beside a peer in mode \(mode.rawValue)"
                let call = client.call(
                    path: Self.watch.path, request: Interop.Empty().serializedBytes(),
                    metadata: Metadata([("stream", stream)]))
                var messages = call.makeAsyncIterator()
                #expect(try await messages.next() != nil, "\(stream): the first message")
                // The connection drains: its stream goes on, and the next call makes a new connection.
                client.close()
                do {
                    // A path nobody serves: a call that reached the server would end at once, UNIMPLEMENTED.
                    _ = try await client.call(path: "/entitlementd.test.Draining/NotServed", request: []).singleMessage()
                    Issue.record("\(stream): the failing peer's call succeeded")
                } catch {
                    #expect((error as? RPCError)?.code == .unavailable, "\(stream): the failing peer's call: \(error)")
                }
                await steps.allow(stream)
                do {
                    #expect(try await messages.next() != nil, "\(stream): the second message")
                    await steps.allow(stream)
                    #expect(try await messages.next() == nil, "\(stream): the end")
                } catch {
                    Issue.record("\(stream): the draining stream failed: \(error)")
                    // Its handler may still wait for the last step: let it end.
                    await steps.allow(stream)
                }
            }
        }
        let report = try await peers.stop()
        #expect(report.problems == [])
        var expected = Dictionary(uniqueKeysWithValues: Self.failingModes.map { ($0.rawValue, Self.rounds) })
        expected[MisbehavingTLSPeers.Mode.relay.rawValue] = Self.rounds * Self.failingModes.count
        #expect(report.performed == expected)
    }
}

/// Lets each stream's handler past its waits one at a time; a stream is named by its request's `stream` metadata.
private actor StreamSteps {
    private var allowed: [String: Int] = [:]
    private var waiting: [String: CheckedContinuation<Void, Never>] = [:]

    func next(_ stream: String) async {
        if let count = allowed[stream], count > 0 {
            allowed[stream] = count - 1
            return
        }
        await withCheckedContinuation { waiting[stream] = $0 }
    }

    func allow(_ stream: String) {
        if let waiter = waiting.removeValue(forKey: stream) {
            waiter.resume()
        } else {
            allowed[stream, default: 0] += 1
        }
    }
}

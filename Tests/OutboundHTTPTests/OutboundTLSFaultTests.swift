import HTTP1
import HTTP2Transport
import OutboundHTTP
import RPCCore
import TestSupport
import Testing

/// A peer whose TLS session fails never costs a healthy connection of the same client. The client's connections
/// share one event-loop thread, and OpenSSL's error queue belongs to the thread: an error a failed session left
/// there (`SSL_shutdown` after a fatal error queues one) was read by the next healthy connection's `SSL_get_error`
/// as its own, and closed it.
@Suite struct OutboundTLSFaultTests {
    /// Healthy requests in flight together in each step, each on a kept-alive connection of its own.
    private static let healthyConnections = 4
    private static let rounds = 6
    private static let failingModes = MisbehavingTLSPeers.Mode.allCases.filter { $0 != .relay }

    @Test func peersThatFailTLSNeverCloseTheHealthyConnectionsOfTheClient() async throws {
        let certificates = try TestCertificates()
        let held = HeldRequests()
        let router = HTTPRouter { routes in
            // Answers which connection the request came on, once the test lets it go.
            routes.register("GET", "/held") { request in
                await held.hold()
                return .text(200, request.peer)
            }
        }
        let healthy = try RunningServer(router: RPCRouter(), httpRouter: router) {
            $0.tls = .init(certificatePath: certificates.certificatePath, privateKeyPath: certificates.privateKeyPath)
        }
        defer { healthy.stop() }
        let peers = try await MisbehavingTLSPeers(
            listeners: Dictionary(uniqueKeysWithValues: Self.failingModes.map { ($0.rawValue, [$0]) }),
            certificates: certificates)
        // One attempt each: a retry would hide a failure the test is looking for.
        let client = try OutboundHTTPClient(
            configuration: .init(trustedCertificatesPath: certificates.certificatePath, retry: .once))
        let exchange = HealthyExchange(client: client, held: held, port: healthy.port, count: Self.healthyConnections)

        do {
            var connections = Set(try await exchange.inFlightTogether(while: {}))
            #expect(connections.count == Self.healthyConnections)
            for round in 1...Self.rounds {
                for mode in Self.failingModes {
                    let step = "round \(round), a peer in mode \(mode.rawValue)"
                    let beside = try await exchange.inFlightTogether {
                        await Self.request(client, misbehaving: mode, port: peers.ports[mode.rawValue] ?? 0)
                    }
                    // A connection closed right after its answer shows on the next exchange: one more, alone.
                    let after = try await exchange.inFlightTogether(while: {})
                    // A closed connection would have been replaced by a new one, from a new port.
                    #expect(Set(beside) == connections, "\(step): the exchange beside it")
                    #expect(Set(after) == connections, "\(step): the exchange after it")
                    connections = Set(after)
                }
            }
        } catch {
            _ = try? await peers.stop()
            throw error
        }
        let report = try await peers.stop()
        #expect(report.problems == [])
        #expect(report.performed == Dictionary(uniqueKeysWithValues: Self.failingModes.map { ($0.rawValue, Self.rounds) }))
    }

    /// The request to a misbehaving peer fails as that peer's misbehaviour says, and only that way.
    private static func request(_ client: OutboundHTTPClient, misbehaving mode: MisbehavingTLSPeers.Mode, port: Int) async {
        guard let url = OutboundURL("https://127.0.0.1:\(port)/") else {
            Issue.record("no URL for port \(port)")
            return
        }
        do throws(OutboundHTTPError) {
            let answer = try await client.send("GET", url, for: .webhook)
            #expect(mode == .answerThenWithoutCloseNotify, "\(mode.rawValue) answered \(answer.response.status)")
            #expect(answer.response.status == 200)
        } catch {
            let expected: Set<OutboundHTTPError.Code> =
                switch mode {
                case .midHandshake, .alert, .untrustedCertificate: [.tlsFailed]
                // The reset may be seen first by the TLS layer or by the socket's own error.
                case .midHandshakeWithReset: [.tlsFailed, .unreachable]
                case .withoutCloseNotify, .reset, .badRecord: [.unreachable]
                case .answerThenWithoutCloseNotify, .relay: []
                }
            #expect(expected.contains(error.code), "\(mode.rawValue): \(error.message)")
        }
    }
}

/// The requests to the healthy server, sent together and held there until the misbehaving peer is done, so that
/// each is in flight on a connection of its own while the peer fails on the same client loop.
private struct HealthyExchange {
    let client: OutboundHTTPClient
    let held: HeldRequests
    let port: Int
    let count: Int

    /// Sends the requests, runs `step` once every one reached the server (or failed), lets them go, and returns
    /// the client address each came from.
    func inFlightTogether(while step: @Sendable () async -> Void) async throws -> [String] {
        let url = try #require(OutboundURL("https://127.0.0.1:\(port)/held"))
        let (client, held) = (self.client, self.held)
        return try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        let answer = try await client.send("GET", url, for: .webhook)
                        #expect(answer.attempts == 1)
                        #expect(answer.response.status == 200)
                        return String(decoding: answer.response.body, as: UTF8.self)
                    } catch {
                        await held.failed()
                        throw error
                    }
                }
            }
            await held.untilSettled(count)
            await step()
            await held.release()
            var peers: [String] = []
            for try await peer in group { peers.append(peer) }
            return peers
        }
    }
}

/// The healthy server's handlers, each waiting until the test lets it answer.
private actor HeldRequests {
    private var held: [CheckedContinuation<Void, Never>] = []
    /// Requests of this step that reached the server or failed on the way.
    private var settled = 0
    private var waiter: (count: Int, continuation: CheckedContinuation<Void, Never>)?

    /// The handler's wait for ``release()``.
    func hold() async {
        await withCheckedContinuation { continuation in
            held.append(continuation)
            settle()
        }
    }

    /// A request that failed before it reached the server: nothing more to wait for.
    func failed() {
        settle()
    }

    /// Returns once `count` requests reached the server or failed.
    func untilSettled(_ count: Int) async {
        guard settled < count else { return }
        await withCheckedContinuation { waiter = (count, $0) }
    }

    /// Lets every held handler answer and starts the next step's count.
    func release() {
        for continuation in held { continuation.resume() }
        held = []
        settled = 0
    }

    private func settle() {
        settled += 1
        if let waiter, settled >= waiter.count {
            self.waiter = nil
            waiter.continuation.resume()
        }
    }
}

import Glibc
import Testing

@testable import HTTP1
@testable import PosixIO

/// How the client names a failed connection: the kinds entctl turns into hints ("is the server running?", "add
/// --tls"), decided from the socket's error and how far HTTP/2 got.
@Suite("Client connection failures")
struct ClientConnectionFailureTests {
    private let address = "127.0.0.1:50051"

    private func classify(
        _ failure: SocketFailure?, tls: Bool = false, received: [UInt8] = [], preface: Bool = false
    ) -> ClientConnectionFailure {
        ClientConnectionFailure.classify(failure, address: address, usesTLS: tls, received: received, prefaceReceived: preface)
    }

    @Test("a refused or unreachable connect names the address")
    func connectFailures() {
        let refused = classify(.system(ECONNREFUSED))
        #expect(refused.kind == .refused)
        #expect(refused.description == "cannot connect to 127.0.0.1:50051: connection refused")
        #expect(classify(.system(ENETUNREACH)).kind == .unreachable)
        #expect(ClientConnectionFailure(connectErrno: ECONNREFUSED, address: address) == refused)
        let unresolvable = ClientConnectionFailure(connecting: TransportError.invalidAddress("x:1"), address: "x:1")
        #expect(unresolvable.kind == .unresolvable)
        #expect(ClientConnectionFailure(connecting: .connect(ECONNREFUSED), address: address) == refused)
    }

    @Test("cleartext against TLS: a TLS record in answer, or a close before the server's preface")
    func cleartextAgainstTLS() {
        let alert: [UInt8] = [0x15, 0x03, 0x03]
        #expect(classify(nil, received: alert).kind == .answeredWithTLS)
        #expect(classify(nil, received: [0x16, 0x03, 0x01]).kind == .answeredWithTLS)
        let closed = classify(nil)
        #expect(closed.kind == .closedDuringPreface)
        #expect(closed.description == "the connection to 127.0.0.1:50051 closed during the HTTP/2 preface")
        #expect(classify(.system(ECONNRESET)).kind == .closedDuringPreface)
        // With TLS, or once the server's SETTINGS arrived, a close is only a close.
        #expect(classify(nil, tls: true).kind == .closed)
        #expect(classify(.system(ECONNRESET), received: [0, 0, 6], preface: true).kind == .closed)
        // Bytes that are neither TLS nor HTTP/2.
        #expect(classify(nil, received: Array("HTT".utf8)).description == "127.0.0.1:50051 did not answer with HTTP/2")
    }

    @Test("a failed TLS handshake")
    func tlsHandshake() {
        let failed = classify(.tlsHandshake("certificate verify failed"), tls: true)
        #expect(failed.kind == .tlsHandshake)
        #expect(failed.description == "TLS handshake with 127.0.0.1:50051 failed: certificate verify failed")
        #expect(classify(.tlsHandshake(nil), tls: true).description.contains("closed the connection during the TLS handshake"))
    }

    @Test("TLS record headers")
    func recordHeaders() {
        #expect(ClientConnectionFailure.isTLSRecordHeader([0x15, 0x03, 0x03]))
        #expect(ClientConnectionFailure.isTLSRecordHeader([0x16]))
        #expect(!ClientConnectionFailure.isTLSRecordHeader([0x15, 0x02]))
        #expect(!ClientConnectionFailure.isTLSRecordHeader([0x00, 0x00, 0x12]))  // an HTTP/2 SETTINGS frame header
        #expect(!ClientConnectionFailure.isTLSRecordHeader([]))
    }
}

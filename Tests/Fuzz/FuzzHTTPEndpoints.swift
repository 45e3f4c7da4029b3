import EntitlementServer
import Foundation
import FuzzFixture
import HTTP2Transport
import RPCCore
import Synchronization

/// libFuzzer target: the HTTP endpoints `entitlementd` serves, through its transport and routers in this process
/// (``FuzzServer``'s wiring behind an `HTTP2Server` on a loopback port, as `EntitlementServerApp` starts it): App
/// Store notifications, Google Play pushes, Stripe webhooks, gRPC-Web calls (binary and text) to every method, CORS
/// preflights, the console and demo files, `/healthz`, `/readyz` and `/metrics`. Requests are HTTP/1.1 made from the
/// input: a valid method, path and headers of the endpoint, headers at their edges (`content-length`,
/// `grpc-timeout`, `retry-after`, chunked bodies), bodies that are real signed payloads, one bit of one flipped, or
/// the input's bytes; now and then the input's bytes are the whole request. Each must be answered, or the connection
/// closed, within 15 s; a server that holds the connection silent (or traps) fails the run.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPEndpoints(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let server = FuzzServer.shared
    var input = FuzzInput(data, size)
    server.fakes.answer(with: FakeStores.Script(&input))
    var request = EndpointRequest.make(&input, server)
    let bytes = request.serialized(&input)
    let outcome = HTTP1Exchange.run(
        port: listener.localPort, request: bytes, ending: request.ending, head: request.method == "HEAD", limit: .seconds(15))
    guard outcome != .silent else {
        fatalError("hang: no answer within 15 s to \(request.method) \(request.target) (\(bytes.count) bytes)")
    }
    answers.withLock { $0["\(request.kind) \(outcome)", default: 0] += 1 }
    return 0
}

/// The server, configured as `EntitlementServerApp` configures it (CORS from the tenants' web origins).
private let listener: HTTP2Server = {
    var configuration = HTTP2ServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.eventLoopThreads = 1
    configuration.grpcWebCORS = TenantBrowserOrigins(tenants: FuzzServer.shared.tenants, maxAgeSeconds: 600)
    do {
        let server = try HTTP2Server(
            configuration: configuration, router: FuzzServer.shared.wiring.router,
            httpRouter: FuzzServer.shared.wiring.httpRouter, logger: Logger(label: "fuzz-http", minimumLevel: .error))
        try server.start()
        return server
    } catch {
        fatalError("cannot start the fuzz HTTP server: \(error)")
    }
}()

/// How often each kind of request ended each way, printed when the run ends: what the inputs reached.
private let answers: Mutex<[String: Int]> = {
    atexit {
        let lines = answers.withLock { $0 }.sorted { $0.key < $1.key }.map { "answers: \($0.key) \($0.value)" }
        FileHandle.standardError.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
    return Mutex([:])
}()

/// One request to one endpoint, before its framing.
private struct EndpointRequest {
    var kind: String
    var method: String
    var target: String
    var headers: [(String, String)] = []
    var body: [UInt8] = []
    var ending = HTTP1Exchange.Ending.complete
    /// The whole request as the input's bytes, sent as they are.
    var raw: [UInt8]?

    static func make(_ input: inout FuzzInput, _ server: FuzzServer) -> EndpointRequest {
        let tenant = input.oneIn(8) ? input.pick(FuzzVocabulary.tenantIDs) : FuzzVocabulary.tenantID
        let payloads = server.payloads
        switch input.choose(8) {
        case 1:
            var request = EndpointRequest(kind: "play", method: "POST", target: "/v1/google/notifications/\(tenant)")
            if !input.oneIn(8) { request.headers.append(("authorization", mutated(&input, payloads.pushAuthorization(&input)))) }
            request.body = mutated(&input, payloads.pushBody(&input))
            request.headers.append(("content-type", "application/json"))
            return request
        case 2:
            var request = EndpointRequest(kind: "stripe", method: "POST", target: "/v1/stripe/webhooks/\(tenant)")
            let object = payloads.stripeObject(&input)
            // Stripe's API answers with the object as the event shows it, unless the input says it is gone.
            if !input.oneIn(4) { server.fakes.rememberStripeObject(id: object.id, object.object) }
            let body = payloads.stripeEvent(&input, about: object)
            if !input.oneIn(8) { request.headers.append(("stripe-signature", payloads.stripeSignature(&input, body: body))) }
            request.body = mutated(&input, body)
            request.headers.append(("content-type", "application/json; charset=utf-8"))
            return request
        case 3, 4:
            return grpcWeb(&input, server)
        case 5:
            let path = input.pick([
                "/healthz", "/readyz", "/metrics", "/admin/", "/admin/index.html", "/admin/app.js", "/admin/style.css",
                "/demo/", "/demo/app.js", "/admin/..%2Findex.html", "/demo/%00", "/admin/missing.png", "/admin",
                "/v1/apple/notifications/", "/v1/apple/notifications/\(tenant)/extra", "/%", "/a/../healthz",
            ])
            let query = input.oneIn(4) ? "?" + String(decoding: input.bytes(upTo: 16), as: UTF8.self) : ""
            return EndpointRequest(
                kind: "files", method: input.pick(["GET", "HEAD", "GET", "POST", "DELETE", "OPTIONS"]), target: path + query)
        case 6:
            var request = EndpointRequest(
                kind: "preflight", method: "OPTIONS", target: input.pick(FuzzMethod.all).path)
            request.headers.append(("origin", input.pick(origins)))
            request.headers.append(("access-control-request-method", input.pick(["POST", "GET", "PUT", ""])))
            request.headers.append((
                "access-control-request-headers",
                input.pick(["content-type,x-grpc-web,authorization", "x-user-agent", "", "*", "grpc-timeout"])))
            return request
        case 7:
            var request = EndpointRequest(kind: "raw", method: "", target: "")
            request.raw = input.rest()
            request.ending = .halfClose
            return request
        default:
            var request = EndpointRequest(kind: "appstore", method: "POST", target: "/v1/apple/notifications/\(tenant)")
            let signed = payloads.sign(payloads.notification(&input))
            request.body = mutated(&input, payloads.notificationBody(input.oneIn(8) ? input.string([]) : signed))
            request.headers.append(("content-type", "application/json"))
            return request
        }
    }

    static let origins = ["https://app.example.com", "https://evil.example", "null", "", "https://app.example.com:443"]

    /// A gRPC-Web call to any method, framed as browsers frame it, in binary or base64 text.
    static func grpcWeb(_ input: inout FuzzInput, _ server: FuzzServer) -> EndpointRequest {
        let method = input.pick(FuzzMethod.all)
        let text = input.bool()
        var request = EndpointRequest(kind: text ? "grpc-web-text" : "grpc-web", method: "POST", target: method.path)
        request.headers.append(("content-type", (text ? "application/grpc-web-text" : "application/grpc-web") + input.pick(["", "+proto", "+json", ";charset=utf-8"])))
        request.headers.append(("x-grpc-web", "1"))
        request.headers.append(("x-user-agent", "grpc-web-javascript/0.1"))
        let keys = server.keys
        switch input.choose(8) {
        case 5: request.headers.append(("authorization", "Bearer " + keys.readKey))
        case 6: request.headers.append(("authorization", "Bearer " + keys.barePublicKey))
        case 7: break
        default: request.headers.append(("authorization", "Bearer " + (method.takesPublicKey ? keys.publicKey : keys.secretKey)))
        }
        if input.oneIn(2) { request.headers.append(("origin", input.pick(origins))) }
        if input.oneIn(2) { request.headers.append(("grpc-timeout", input.pick(grpcTimeouts))) }
        let message = method.request(&input, server)
        // A frame: flags (0, or 1 for a compressed message this request does not declare), length, message; the
        // length may lie, and more frames may follow.
        var frames: [UInt8] = []
        let flags: UInt8 = input.oneIn(16) ? input.pick([0x01, 0x80, 0xFF]) : 0
        let length = input.oneIn(16) ? UInt32(truncatingIfNeeded: input.int64()) : UInt32(message.count)
        frames += [flags] + withUnsafeBytes(of: length.bigEndian, Array.init) + message
        if input.oneIn(8) { frames += input.bytes(upTo: 16) }
        if text {
            // Browsers may send several base64 pieces, each padded.
            let split = input.choose(frames.count + 1)
            request.body = Array((Data(frames[..<split]).base64EncodedString() + Data(frames[split...]).base64EncodedString()).utf8)
        } else {
            request.body = frames
        }
        if method.isStreaming { request.ending = .stream }
        return request
    }

    /// `grpc-timeout` values at and past the edges of its eight digits and units.
    static let grpcTimeouts = [
        "1n", "0n", "0m", "1m", "99999999H", "100000000H", "99999999S", "18446744073709551615S", "9223372036854775807u",
        "1x", "", "-1m", "1", "H", "00000001M", "99999999n", " 5S",
    ]

    /// `bytes`, or with one bit flipped, or cut short, or the input's bytes instead.
    static func mutated(_ input: inout FuzzInput, _ bytes: [UInt8]) -> [UInt8] {
        switch input.choose(8) {
        case 5 where !bytes.isEmpty:
            var flipped = bytes
            flipped[input.choose(flipped.count)] ^= 1 << UInt8(input.choose(8))
            return flipped
        case 6: return Array(bytes.prefix(input.choose(bytes.count + 1)))
        case 7: return input.bytes(upTo: 256)
        default: return bytes
        }
    }

    static func mutated(_ input: inout FuzzInput, _ text: String) -> String {
        String(decoding: mutated(&input, Array(text.utf8)), as: UTF8.self)
    }

    /// The request's bytes: the request line, the endpoint's headers with the input's additions at their edges, and
    /// the body with a `content-length` (the body's, or one at an edge) or chunked.
    mutating func serialized(_ input: inout FuzzInput) -> [UInt8] {
        if let raw { return raw }
        if input.oneIn(16) { method = input.pick(["GET", "PUT", "PATCH", "post", "BREW", "HEAD"]) }
        var head = "\(method) \(target) HTTP/1.1\r\nhost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        for _ in 0..<input.choose(3) {
            let (name, values) = input.pick(Self.edgeHeaders)
            head += "\(name): \(input.pick(values))\r\n"
        }
        var body = self.body
        switch input.choose(8) {
        case 5:
            head += "transfer-encoding: chunked\r\n"
            let split = input.choose(body.count + 1)
            var chunked: [UInt8] = []
            for piece in [body[..<split], body[split...]] where !piece.isEmpty {
                chunked += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
            }
            if input.oneIn(4) {
                // A chunk size at an edge, and the stream ends wherever it ends.
                chunked += Array((input.pick(["ffffffffffffffff", "10000000000000000", "-1", "7fffffffffffffff", "0x1"]) + "\r\n").utf8)
                ending = .halfClose
            } else {
                chunked += Array("0\r\n\r\n".utf8)
            }
            body = chunked
        case 6:
            let declared = input.pick(Self.contentLengths)
            head += "content-length: \(declared)\r\n"
            // The server waits for bytes that never come, or refuses the head: either way it must end the exchange.
            if Int(declared) != body.count { ending = .halfClose }
        case 7:
            head += "content-length: \(body.count)\r\ncontent-length: \(body.count + input.choose(2))\r\n"
            ending = .halfClose
        default:
            if !body.isEmpty || method == "POST" { head += "content-length: \(body.count)\r\n" }
        }
        return Array((head + "\r\n").utf8) + body
    }

    static let contentLengths = [
        "0", "-1", "9223372036854775807", "9223372036854775808", "18446744073709551616", "+5", "5, 5", " 5", "0x10",
        "1e3", "", "00000000000000000000000000000001", "4294967296",
    ]

    /// Headers whose values are numbers or dates some code path reads, at and past their edges.
    static let edgeHeaders: [(String, [String])] = [
        ("grpc-timeout", grpcTimeouts),
        ("retry-after", ["0", "-1", "9223372036854775808", "Fri, 31 Dec 9999 23:59:59 GMT", "Thu, 01 Jan 1970 00:00:00 GMT", ""]),
        ("x-request-id", ["", String(repeating: "r", count: 300), "\u{7f}", "a b", "0123456789abcdef0123456789abcdef"]),
        ("expect", ["100-continue", "200-ok"]),
        ("connection", ["close", "keep-alive", "upgrade", "te"]),
        ("upgrade", ["h2c", "websocket"]),
        ("te", ["trailers", "gzip"]),
        ("grpc-encoding", ["gzip", "identity", "br", ""]),
        ("grpc-accept-encoding", ["gzip", "identity,gzip", ""]),
        ("accept-encoding", ["gzip", "*", ""]),
        ("forwarded", ["for=192.0.2.60;proto=http", "for=\"[2001:db8::1]:4711\"", "for=unknown", String(repeating: "for=1.2.3.4,", count: 200)]),
        ("x-forwarded-for", ["203.0.113.195", "203.0.113.195, 2001:db8::1", "999.999.999.999", ""]),
        ("content-type", ["application/grpc", "application/grpc-web", "text/plain", "application/json", ""]),
        ("authorization", ["Bearer", "Bearer ", "Basic Zm9vOmJhcg==", String(repeating: "B", count: 9000)]),
        ("origin", origins),
        ("host", ["", "[::1]:0", "example.com:99999999999"]),
    ]
}

import CivilCalendar
import Encodings
import Foundation
import HTTP1
import HTTP2Transport
import PosixIO
import RPCCore
import StandardWebhooks

#if canImport(Glibc)
import Glibc
#endif

/// `dev webhook-receiver`: a tenant's backend for local testing. It takes the server's webhook deliveries at
/// `POST /webhooks`, checks each one's Standard Webhooks signature with the endpoint's secret (as a receiver's
/// library would: `webhook-id`, `webhook-timestamp` within five minutes, a `v1` signature that matches), prints it, and
/// answers as a backend does: 204 when the signature holds, 401 with the reason when it does not.
extension DevCommands {
    /// The demo tenant's webhook endpoint secret (Config/tenants.demo.json, endpoint `demo-backend`): public
    /// knowledge, like its API keys.
    static let demoEndpointSecret = "whsec_ZW50aXRsZW1lbnRkIGRlbW8gd2ViaG9vayBzZWNyZXQ="
    /// Where the demo tenant's endpoint points.
    static let defaultReceiverAddress = ListenAddress(host: "127.0.0.1", port: 8093)
    static let receiverPath = "/webhooks"

    /// `dev webhook-receiver [--listen HOST:PORT] [--secret SECRET]`: serves until Ctrl-C or SIGTERM (exit 0).
    func webhookReceiver() async throws -> Int32 {
        try arguments.check(positionals: [], options: ["--listen", "--secret"])
        let secretText = try arguments.optional("--secret") ?? Self.demoEndpointSecret
        let secret: WebhookSecret
        do throws(StandardWebhookError) {
            secret = try WebhookSecret(secretText)
        } catch {
            throw UsageError(description: "invalid --secret: \(error.message)")
        }
        var address = Self.defaultReceiverAddress
        if let text = try arguments.optional("--listen") {
            switch ListenAddress.parse(text) {
            case .success(let parsed): address = parsed
            case .failure(let error): throw UsageError(description: "invalid --listen '\(text)': \(error)")
            }
        }
        let printer = printer
        let router = HTTPRouter { routes in
            routes.register("POST", Self.receiverPath) { request in
                let delivery = WebhookReceipt(request, secret: secret, now: Int64(Date().timeIntervalSince1970))
                printer.print(delivery, human: delivery.line)
                return delivery.problem.map { .text(401, $0 + "\n") } ?? HTTPResponse(status: 204)
            }
        }
        var configuration = HTTP2ServerConfiguration()
        configuration.host = address.host
        configuration.port = address.port
        configuration.eventLoopThreads = 1
        let server: HTTP2Server
        do throws(TransportError) {
            server = try HTTP2Server(
                configuration: configuration, router: RPCRouter(), httpRouter: router,
                logger: Logger(label: "webhook-receiver", minimumLevel: .warning))
            try server.start()
        } catch {
            throw Failure(description: "cannot listen on \(address): \(error.message) (pick another with --listen)")
        }
        Output.note(
            "receiving webhooks at http://\(address.host):\(server.localPort)\(Self.receiverPath), checked with the "
                + (arguments.value("--secret") == nil ? "demo endpoint's secret" : "secret given") + "; Ctrl-C stops")
        // Each line is written whole as it is printed, so stopping at once loses nothing.
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }
        while true { try await Task.sleep(for: .seconds(Seconds.perHour)) }
    }
}

/// One delivery as the receiver saw it: its headers, whether its signature holds, and what its body says.
struct WebhookReceipt: JSONEncodable {
    let webhookID: String
    let timestamp: String
    let body: [UInt8]
    /// Why the delivery was refused; nil when its signature holds.
    let problem: String?

    init(_ request: HTTPRequest, secret: WebhookSecret, now: Int64) {
        webhookID = request.headers[WebhookSignature.idHeader] ?? ""
        timestamp = request.headers[WebhookSignature.timestampHeader] ?? ""
        body = request.body
        do {
            try WebhookSignature.verify(
                id: request.headers[WebhookSignature.idHeader], timestamp: request.headers[WebhookSignature.timestampHeader],
                signature: request.headers[WebhookSignature.signatureHeader], body: request.body, secrets: [secret], now: now)
            problem = nil
        } catch {
            problem = error.message
        }
    }

    /// The parts of the body a line shows (`{"type", "timestamp", "data"}`; see the README's webhook section).
    private struct Body: JSONReadable {
        struct Entitlement: JSONReadable {
            var id = ""
            var expires_at: String?

            init(json reader: inout JSONReader) throws(JSONReadError) {
                var id: String?
                try reader.readObject { reader, key throws(JSONReadError) in
                    if key == "id" {
                        id = try reader.optionalString()
                    } else if key == "expires_at" {
                        expires_at = try reader.optionalString()
                    } else {
                        try reader.skipValue()
                    }
                }
                guard let id else { throw .missing("id") }
                self.id = id
            }
        }
        struct Data: JSONReadable {
            var app_user_id: String?
            var version: Int64?
            var reason: String?
            var entitlements: [Entitlement]?

            init(json reader: inout JSONReader) throws(JSONReadError) {
                var entitlements: [Entitlement]?
                try reader.readObject { reader, key throws(JSONReadError) in
                    if key == "app_user_id" {
                        app_user_id = try reader.optionalString()
                    } else if key == "version" {
                        version = try reader.optionalInt64()
                    } else if key == "reason" {
                        reason = try reader.optionalString()
                    } else if key == "status" {
                        try reader.readOptional { reader throws(JSONReadError) in
                            var read: [Entitlement]?
                            try reader.readObject { reader, key throws(JSONReadError) in
                                guard key == "entitlements" else { return try reader.skipValue() }
                                read = try reader.readArray(of: Entitlement.self)
                            }
                            guard let read else { throw .missing("entitlements") }
                            entitlements = read
                        }
                    } else {
                        try reader.skipValue()
                    }
                }
                self.entitlements = entitlements
            }
        }
        var type = ""
        var timestamp: String?
        var data: Data?

        init(json reader: inout JSONReader) throws(JSONReadError) {
            var type: String?
            try reader.readObject { reader, key throws(JSONReadError) in
                if key == "type" {
                    type = try reader.optionalString()
                } else if key == "timestamp" {
                    timestamp = try reader.optionalString()
                } else if key == "data" {
                    data = try reader.readOptional { reader throws(JSONReadError) in try Data(json: &reader) }
                } else {
                    try reader.skipValue()
                }
            }
            guard let type else { throw .missing("type") }
            self.type = type
        }
    }

    /// `2026-11-30T12:07:36Z  customer.grant  alice  version 2  pro until 2026-12-30T12:07:36Z  reason: ...` and
    /// `(msg_..., signature verified)`; `REFUSED msg_...: why` for a delivery whose signature does not hold.
    var line: String {
        if let problem { return "REFUSED \(webhookID.isEmpty ? "-" : webhookID): \(problem)" }
        guard let parsed = try? JSONReader.read(Body.self, from: body) else {
            return "\(webhookID): a body that is not a webhook message (\(body.count) bytes), signature verified"
        }
        var parts = [Self.seconds(parsed.timestamp ?? ""), parsed.type]
        if let data = parsed.data, let user = data.app_user_id {
            parts.append("\(user)  version \(data.version ?? 0)")
            let entitlements = data.entitlements ?? []
            parts.append(
                entitlements.isEmpty
                    ? "no entitlements"
                    : entitlements.map { $0.id + ($0.expires_at.map { " until " + Self.seconds($0) } ?? " lifetime") }
                        .joined(separator: ", "))
            if let reason = data.reason, !reason.isEmpty { parts.append("reason: " + reason) }
        }
        return parts.joined(separator: "  ") + "  (\(webhookID), signature verified)"
    }

    /// An RFC 3339 time to the second, as entctl prints times.
    private static func seconds(_ text: String) -> String {
        TimeText.parseRFC3339(text).map { TimeText.rfc3339($0, fractional: false) } ?? text
    }

    /// `{"webhookId", "webhookTimestamp", "verified", "error", "body"}`, the body as sent when it is JSON.
    var json: JSONValue {
        let isJSON = (try? JSONReader.read(body) { reader throws(JSONReadError) in try reader.skipValue() }) != nil
        return .object([
            ("webhookId", .string(webhookID)), ("webhookTimestamp", .string(timestamp)),
            ("verified", .bool(problem == nil)), ("error", .string(problem ?? "")),
            ("body", isJSON ? .raw(body) : .string(String(decoding: body, as: UTF8.self))),
        ])
    }
}

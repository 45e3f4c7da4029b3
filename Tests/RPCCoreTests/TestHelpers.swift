import ProtobufWire
import RPCCore
import Synchronization
import Testing

// Shared fixtures for the RPCCore tests. The test target depends only on RPCCore, so the small recording sink that
// TestSupport offers is re-implemented here.

/// A `ServerResponseSink` that records every call in order and, as the protocol asks, ends the call with the trailers
/// added before `finish` followed by the status's own.
final class RecordingSink: ServerResponseSink {
    enum Event: Sendable, Hashable {
        case headers(Metadata)
        case message([UInt8])
        case status(RPCStatus)
    }

    private struct State {
        var events: [Event] = []
        var trailers = Metadata()
    }

    private let state = Mutex(State())

    var events: [Event] { state.withLock { $0.events } }

    var messages: [[UInt8]] {
        events.compactMap { if case .message(let bytes) = $0 { bytes } else { nil } }
    }

    var statuses: [RPCStatus] {
        events.compactMap { if case .status(let status) = $0 { status } else { nil } }
    }

    /// Trailers added so far (not yet sent).
    var pendingTrailers: Metadata { state.withLock { $0.trailers } }

    func sendHeaders(_ metadata: Metadata) { state.withLock { $0.events.append(.headers(metadata)) } }
    func sendMessage(_ message: [UInt8]) async throws { state.withLock { $0.events.append(.message(message)) } }
    func addTrailer(_ value: Metadata.Value, forKey key: String) { state.withLock { $0.trailers.add(value, forKey: key) } }
    /// These tests end calls only from the handler.
    var transportStatus: RPCStatus? { nil }
    func finish(_ status: RPCStatus) {
        state.withLock { $0.events.append(.status(status.adding($0.trailers))) }
    }
}

/// A thread-safe list for values recorded from `@Sendable` closures.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}

/// A one-field message (`string text = 1`) for the typed-handler tests.
struct TextMessage: ProtoMessage {
    var text = ""
    var unknownFields: [UInt8] = []

    init() {}
    init(_ text: String) { self.text = text }

    init(from reader: inout ProtoReader) throws {
        self.init()
        while let tag = try reader.nextTag() {
            switch tag.number {
            case 1: text = try reader.decodeString(tag)
            default: unknownFields += try reader.skipField(tag)
            }
        }
    }

    func encode(to writer: inout ProtoWriter) {
        writer.writeString(1, text)
        writer.writeRaw(unknownFields)
    }

    /// Field 1, length-delimited, claims 5 bytes but carries 1: never parses.
    static let unparsableBytes: [UInt8] = [0x0A, 0x05, 0x61]
}

/// Runs the handler registered at `path` with `requests` (then a half-close, or `end` as the stream's error) and
/// returns what it sent.
func runCall(
    _ router: RPCRouter,
    path: String,
    requests: [[UInt8]],
    end: RPCError? = nil,
    metadata: Metadata = Metadata()
) async throws -> RecordingSink {
    let handler = try #require(router.handler(forPath: path))
    let method = try #require(MethodDescriptor(path: path))
    let sink = RecordingSink()
    let stream = MessageStream()
    for request in requests { stream.yield(request) }
    stream.finish(throwing: end)
    let context = ServerContext(method: method, metadata: metadata, timeout: nil, peer: "test-peer", responseSink: sink)
    await handler.run(requests: stream, context: context)
    return sink
}


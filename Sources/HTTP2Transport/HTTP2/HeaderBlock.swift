import Encodings
import Glibc
import HTTP1
import RPCCore

/// One received header block (request head, response head or trailers), bounded by the header list limit.
struct HeaderBlock {
    var method = ""
    var path = ""
    /// Kept only when it is not gRPC's, for the 415 message and plain HTTP routes.
    var contentType: String?
    /// gRPC, gRPC-Web or a Connect stream: a call for the router's streams. (A Connect unary call is a plain HTTP
    /// request: ``ConnectUnaryCall``.)
    var isGRPC = false
    /// Set for gRPC-Web calls and Connect streams (``isGRPC`` is then true too).
    var framing: BodyFraming?
    var timeout: String?
    var encoding: String?
    /// `:authority`, or HTTP/1.1's `host`: what a browser's `Origin` is compared with (``CrossOrigin``).
    var authority: String?
    /// Fields that are not pseudo-headers or gRPC's own, in arrival order, for metadata or plain HTTP routes.
    var fields: [(name: String, value: String)] = []
    /// Size as HTTP/2 counts it: name + value + 32 per field.
    var listSize = 0
    var tooLarge = false
    // What the block before ``reset()`` held. A client sends the same head again and again (one method, one
    // authority, one key), so a value equal to the previous one reuses its string, and metadata made of fields
    // that all repeat is reused whole: making strings and metadata was a tenth of a small call's cost.
    private var previousMethod = ""
    private var previousPath = ""
    private var previousAuthority = ""
    private var previousFields: [(name: String, value: String)] = []
    /// How many of ``fields`` repeat the previous block's field at the same position, name and value.
    private var repeatedFields = 0
    /// The metadata made of ``fields`` (``callMetadata()``); after ``reset()``, of ``previousFields``.
    private var madeMetadata: Metadata?
    private var metadataIsMade = false

    init() {}

    /// Empties the block for the next request head on the connection, keeping the storage of its fields.
    mutating func reset() {
        if !method.isEmpty { previousMethod = method }
        if !path.isEmpty { previousPath = path }
        if let authority { previousAuthority = authority }
        swap(&fields, &previousFields)
        fields.removeAllKeepingStorage()
        repeatedFields = 0
        if !metadataIsMade { madeMetadata = nil }
        metadataIsMade = false
        method = ""
        path = ""
        contentType = nil
        isGRPC = false
        framing = nil
        timeout = nil
        encoding = nil
        authority = nil
        listSize = 0
        tooLarge = false
    }

    /// The head of an HTTP/1.1 request, read as HTTP/2's would be (the parser has bounded its size already).
    /// `host` and the connection's own headers are HTTP/1.1 framing, not metadata (HTTP/2 has neither).
    init(http1 request: HTTPRequest) {
        method = request.method
        path = request.target
        authority = request.headers["host"]
        for (name, value) in request.headers where name != "host" && !Metadata.isConnectionHeader(name) {
            var name = name
            var value = value
            name.withUTF8 { name in
                value.withUTF8 { value in
                    add(name: UnsafeRawBufferPointer(name), value: UnsafeRawBufferPointer(value), limit: .max)
                }
            }
        }
    }

    /// Adds one field.
    mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, limit: Int) {
        add(name: name, value: value, known: KnownHeader(name), limit: limit)
    }

    /// Adds one field whose name was matched already (`known`, nil for any other name). Only the values a call needs
    /// become strings: this runs for every header of every request.
    mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, known: KnownHeader?, limit: Int) {
        listSize += name.count + value.count + 32
        if listSize > limit {
            tooLarge = true
            return
        }
        switch known {
        case .method: method = Self.string(value, reusing: previousMethod)
        case .path: path = Self.string(value, reusing: previousPath)
        case .authority: authority = Self.string(value, reusing: previousAuthority)
        case .scheme, .te, .userAgent, .grpcAcceptEncoding: break
        case .contentType:
            // gRPC's own type as it nearly always comes: one comparison.
            if value.count == 16, memcmp(value.baseAddress!, Self.plainGRPCContentType.utf8Start, 16) == 0 {
                isGRPC = true
                framing = nil
                contentType = nil
                break
            }
            // gRPC-Web's types share gRPC's prefix: they are looked for first.
            framing = BodyFraming(contentType: value)
            isGRPC = framing != nil || Self.isGRPCContentType(value)
            contentType = isGRPC ? nil : String(decoding: value, as: UTF8.self)
        case .grpcTimeout: timeout = String(decoding: value, as: UTF8.self)
        case .grpcEncoding: encoding = String(decoding: value, as: UTF8.self)
        case .host, .contentLength, .connectionSpecific, nil: appendField(name: name, value: value)
        }
    }

    private mutating func appendField(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        let index = fields.count
        guard index < previousFields.count, Self.equal(previousFields[index].name, name) else {
            fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
            return
        }
        let previous = previousFields[index]
        if Self.equal(previous.value, value) {
            fields.append(previous)
            repeatedFields += 1
        } else {
            fields.append((previous.name, String(decoding: value, as: UTF8.self)))
        }
    }

    /// `bytes` as a string: `previous` itself when it holds the same bytes.
    private static func string(_ bytes: UnsafeRawBufferPointer, reusing previous: String) -> String {
        equal(previous, bytes) ? previous : String(decoding: bytes, as: UTF8.self)
    }

    private static func equal(_ string: String, _ bytes: UnsafeRawBufferPointer) -> Bool {
        func equal(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
            utf8.count == bytes.count && (utf8.isEmpty || memcmp(utf8.baseAddress!, bytes.baseAddress!, utf8.count) == 0)
        }
        return string.withUTF8Bytes(equal)
    }

    private static let grpcContentType = Array("application/grpc".utf8)
    private static let plainGRPCContentType: StaticString = "application/grpc"

    /// `application/grpc`, optionally followed by `+format` or `;parameters`.
    private static func isGRPCContentType(_ value: UnsafeRawBufferPointer) -> Bool {
        guard value.starts(with: grpcContentType) else { return false }
        guard value.count > grpcContentType.count else { return true }
        let next = value[grpcContentType.count]
        return next == UInt8(ascii: "+") || next == UInt8(ascii: ";")
    }

    /// The first value of a field kept in `fields`.
    func value(of name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// ``metadata()`` of a request head, the previous block's when every field repeats it.
    mutating func callMetadata() throws(RPCError) -> Metadata {
        if let madeMetadata, repeatedFields == fields.count, fields.count == previousFields.count {
            metadataIsMade = true
            return madeMetadata
        }
        let metadata = try metadata()
        madeMetadata = metadata
        metadataIsMade = true
        return metadata
    }

    /// Custom metadata: transport headers dropped, `-bin` values base64-decoded (comma-separated values split).
    func metadata() throws(RPCError) -> Metadata {
        var metadata = Metadata()
        for field in fields where !Metadata.isTransportHeader(field.name) {
            guard Metadata.isBinaryKey(field.name) else {
                metadata.add(.string(field.value), forLowercaseKey: field.name)
                continue
            }
            for part in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = part.drop(while: { $0 == " " })
                guard let bytes = Base64.decode(trimmed, padding: .optional) else {
                    throw RPCError(code: .internal, message: "Metadata '\(field.name)' is not valid base64.")
                }
                metadata.add(.binary(bytes), forLowercaseKey: field.name)
            }
        }
        return metadata
    }
}

extension HeaderList {
    /// Adds custom metadata, base64-encoding `-bin` values unpadded. Keys not allowed as metadata are skipped.
    mutating func add(_ metadata: Metadata) {
        StatusFields.forEach(metadata) { add($0, bytes: $1) }
    }

    /// The start of every gRPC response head, lending its storage: the server keeps it.
    static func grpcResponse(acceptEncoding: String) -> HeaderList {
        var headers = HeaderList()
        headers.add(":status", "200")
        headers.add("content-type", "application/grpc")
        headers.add("grpc-accept-encoding", acceptEncoding)
        return headers.lendingStorage()
    }

    /// The trailers of most calls, built once, lending their storage.
    static let okTrailers: HeaderList = {
        var headers = HeaderList()
        headers.addStatus(.ok)
        return headers.lendingStorage()
    }()

    /// Trailers for `status`, reusing ``okTrailers`` when there is nothing but `OK`.
    static func trailers(for status: RPCStatus) -> HeaderList {
        if status.code == .ok, status.message.isEmpty, status.trailers.isEmpty { return okTrailers }
        var headers = HeaderList()
        headers.addStatus(status)
        return headers
    }

    mutating func addStatus(_ status: RPCStatus) {
        StatusFields.forEach(status) { add($0, bytes: $1) }
    }
}

import RPCCore

/// One received header block (request head, response head or trailers), bounded by the header list limit.
struct HeaderBlock {
    var method = ""
    var scheme = ""
    var path = ""
    var authority = ""
    var contentType: String?
    var timeout: String?
    var encoding: String?
    var acceptEncoding: String?
    /// Fields that are not pseudo-headers or gRPC's own, in arrival order, for metadata or plain HTTP routes.
    var fields: [(name: String, value: String)] = []
    /// Size as HTTP/2 counts it: name + value + 32 per field.
    var listSize = 0
    var tooLarge = false

    mutating func add(name: String, value: String, limit: Int) {
        listSize += name.utf8.count + value.utf8.count + 32
        if listSize > limit {
            tooLarge = true
            return
        }
        switch name {
        case ":method": method = value
        case ":scheme": scheme = value
        case ":path": path = value
        case ":authority": authority = value
        case "content-type": contentType = value
        case "grpc-timeout": timeout = value
        case "grpc-encoding": encoding = value
        case "grpc-accept-encoding": acceptEncoding = value
        default: fields.append((name, value))
        }
    }

    var isGRPC: Bool {
        guard let contentType else { return false }
        return contentType == "application/grpc" || contentType.hasPrefix("application/grpc+")
            || contentType.hasPrefix("application/grpc;")
    }

    /// The first value of a field kept in `fields`.
    func value(of name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// Custom metadata: transport headers dropped, `-bin` values base64-decoded (comma-separated values split).
    func metadata() throws(RPCError) -> Metadata {
        var metadata = Metadata()
        for field in fields where !Metadata.isTransportHeader(field.name) {
            guard field.name.hasSuffix("-bin") else {
                metadata.addString(field.value, forKey: field.name)
                continue
            }
            for part in field.value.split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = part.drop(while: { $0 == " " })
                guard let bytes = Base64.decode(trimmed) else {
                    throw RPCError(code: .internal, message: "Metadata '\(field.name)' is not valid base64.")
                }
                metadata.addBinary(bytes, forKey: field.name)
            }
        }
        return metadata
    }
}

extension HeaderList {
    /// Adds custom metadata, base64-encoding `-bin` values unpadded. Keys not allowed as metadata are skipped.
    mutating func add(_ metadata: Metadata) {
        for (key, value) in metadata where Metadata.isValidCustomKey(key) {
            switch value {
            case .string(let string):
                if key.hasSuffix("-bin") {
                    add(key, Base64.encode(Array(string.utf8)))
                } else if string.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 < 0x7F) }) {
                    add(key, string)
                }
            case .binary(let bytes):
                add(key, Base64.encode(bytes))
            }
        }
    }

    mutating func addStatus(_ status: RPCStatus) {
        add("grpc-status", String(status.code.rawValue))
        if !status.message.isEmpty { add("grpc-message", PercentEncoding.encode(status.message)) }
        add(status.trailers)
    }
}

import ProtoJSON
import StandardServices

/// libFuzzer target: the JSON mapping on arbitrary input, for every message type the server embeds. Nothing traps;
/// JSON that reads gives bytes that write back to JSON reading to the same bytes, and bytes that write to JSON read
/// back to bytes that write the same JSON.
private let schema = try! ProtoSchema(fileDescriptorSet: EmbeddedDescriptors.fileDescriptorSet)
private let names = schema.messages.keys.sorted()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProtoJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 1 else { return 0 }
    // The first byte picks the message and the direction; the rest is its JSON or its encoding.
    let name = names[Int(data[0] >> 1) % names.count]
    let input = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] & 1 == 0 {
        guard let binary = try? schema.binary(fromJSON: input, messageName: name) else { return 0 }
        guard let json = try? schema.json(fromBinary: binary, messageName: name) else {
            fatalError("\(name): bytes read from JSON do not write as JSON")
        }
        guard (try? schema.binary(fromJSON: json, messageName: name)) == binary else {
            fatalError("\(name): the JSON written does not read to the same bytes")
        }
    } else {
        guard let json = try? schema.json(fromBinary: input, messageName: name) else { return 0 }
        guard let binary = try? schema.binary(fromJSON: json, messageName: name) else {
            fatalError("\(name): the JSON written from bytes does not read: \(String(decoding: json, as: UTF8.self))")
        }
        guard (try? schema.json(fromBinary: binary, messageName: name)) == json else {
            fatalError("\(name): the bytes read from the JSON do not write the same JSON")
        }
    }
    return 0
}

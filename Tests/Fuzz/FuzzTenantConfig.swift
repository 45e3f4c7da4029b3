@testable import TenantConfiguration
import Foundation

/// libFuzzer target: the tenants file loader never crashes on any bytes, and its strict JSON parser accepts only
/// what Foundation's parser accepts too (it is stricter: duplicate keys, for one, are refused), numbers aside:
/// Foundation refuses a number beyond `Double`'s range that the grammar allows (configuration reads its few numbers
/// as integers itself).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTenantConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if (try? JSONParser.parse(bytes)) != nil,
        (try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])) == nil,
        !hasNumberBeyondDouble(bytes)
    {
        fatalError("the tenants file parser accepted JSON that Foundation rejects: \(String(decoding: bytes, as: UTF8.self))")
    }
    _ = try? TenantConfigLoader.parse(bytes, file: "fuzz.json", directory: "/nonexistent")
    return 0
}

/// A run of number characters that `Double` cannot hold (inside strings too: a loose check is enough here).
private func hasNumberBeyondDouble(_ bytes: [UInt8]) -> Bool {
    let numberBytes = Set("0123456789+-.eE".utf8)
    var run: [UInt8] = []
    for byte in bytes + [0x20] {
        if numberBytes.contains(byte) {
            run.append(byte)
            continue
        }
        if !run.isEmpty, let value = Double(String(decoding: run, as: UTF8.self)), !value.isFinite { return true }
        run = []
    }
    return false
}

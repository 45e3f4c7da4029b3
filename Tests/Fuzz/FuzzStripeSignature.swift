import Stripe

/// libFuzzer target: `Stripe-Signature` checking never crashes on any header or body, and a header made for a body
/// (the scheme Stripe signs with) verifies for it and for no body differing in one byte.
private let secret = "whsec_fuzzFuzzFuzzFuzzFuzz0001"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStripeSignature(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    // The first line is a header, the rest a body.
    let split = input.firstIndex(of: 0x0A) ?? input.count
    let header = String(decoding: input[..<split], as: UTF8.self)
    let body = Array(input[min(input.count, split + 1)...])
    let now: Int64 = 1_800_000_000
    _ = try? StripeSignature.verify(header: header, body: body, secrets: [secret], now: now)
    let signed = StripeSignature.header(body: body, secret: secret, timestamp: now - 10)
    do throws(StripeSignatureError) {
        try StripeSignature.verify(header: signed, body: body, secrets: ["whsec_other0000000000000", secret], now: now)
    } catch {
        fatalError("a header made for the body was refused: \(error)")
    }
    guard !body.isEmpty else { return 0 }
    var tampered = body
    tampered[Int(data[0]) % tampered.count] ^= 0x01
    if (try? StripeSignature.verify(header: signed, body: tampered, secrets: [secret], now: now)) != nil {
        fatalError("a header verified for a body changed by one bit")
    }
    return 0
}

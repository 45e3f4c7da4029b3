import StandardWebhooks

/// libFuzzer target: Standard Webhooks verification never crashes on any headers or body, and a signature made for
/// a message (with two secrets, as while one rotates) verifies for it and for no body differing in one bit.
private let secret = try! WebhookSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
private let previous = try! WebhookSecret(key: Array(repeating: 0x5A, count: 32))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStandardWebhooks(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    // Lines: webhook-id, webhook-timestamp, webhook-signature, then the body.
    var lines = input.split(separator: 0x0A, maxSplits: 3, omittingEmptySubsequences: false).map(Array.init)
    while lines.count < 4 { lines.append([]) }
    let text = lines[..<3].map { String(decoding: $0, as: UTF8.self) }
    let body = lines[3]
    let now: Int64 = 1_800_000_000
    _ = try? WebhookSignature.verify(id: text[0], timestamp: text[1], signature: text[2], body: body, secrets: [secret], now: now)
    _ = try? WebhookSecret(text[0])
    let id = (try? WebhookMessageID(text[0])) ?? WebhookMessageID.derived(from: lines[0])
    let signed = WebhookSignature.sign(id: id, timestamp: now - 10, body: body, secrets: [secret, previous])
    for secrets in [[secret], [previous]] {
        do throws(StandardWebhookError) {
            try WebhookSignature.verify(id: id.text, timestamp: "\(now - 10)", signature: signed, body: body, secrets: secrets, now: now)
        } catch {
            fatalError("a signature made for the message was refused: \(error)")
        }
    }
    guard !body.isEmpty else { return 0 }
    var tampered = body
    tampered[Int(data[0]) % tampered.count] ^= 0x01
    if (try? WebhookSignature.verify(
        id: id.text, timestamp: "\(now - 10)", signature: signed, body: tampered, secrets: [secret], now: now)) != nil
    {
        fatalError("a signature verified for a body changed by one bit")
    }
    return 0
}

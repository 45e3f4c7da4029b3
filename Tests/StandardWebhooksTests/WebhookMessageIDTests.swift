import StandardWebhooks
import Testing

@Suite struct WebhookMessageIDTests {
    @Test func madeIDsAreMsgAndBase64URLWithoutDots() throws {
        let ids = (0..<1000).map { _ in WebhookMessageID.make() }
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        for id in ids {
            #expect(id.text.hasPrefix("msg_") && id.text.count == 4 + 22, "\(id)")
            #expect(id.text.dropFirst(4).allSatisfy(allowed.contains), "\(id)")
            #expect(!id.text.contains("."))
            #expect(try WebhookMessageID(id.text) == id, "an ID read back from the outbox is the same ID")
        }
        #expect(Set(ids).count == ids.count)
    }

    @Test func derivedIDsAreStablePerSeed() {
        let first = WebhookMessageID.derived(from: Array("tenant-a\u{0}evt_1".utf8))
        #expect(first == WebhookMessageID.derived(from: Array("tenant-a\u{0}evt_1".utf8)))
        #expect(first != WebhookMessageID.derived(from: Array("tenant-a\u{0}evt_2".utf8)))
        #expect(first != WebhookMessageID.derived(from: Array("tenant-b\u{0}evt_1".utf8)))
        #expect(first.text.hasPrefix("msg_") && first.text.count == 26 && !first.text.contains("."))
        // Pinned: the outbox may rebuild an ID from its seed after an upgrade, so the derivation must not change.
        #expect(WebhookMessageID.derived(from: Array("".utf8)).text == "msg_47DEQpj8HBSa-_TImW-5JA")
    }

    @Test func readingBackRefusesWhatCannotBeSigned() throws {
        #expect(try WebhookMessageID(TestVector.id).text == TestVector.id)
        #expect(try WebhookMessageID("evt-1_x~Z!").text == "evt-1_x~Z!", "the msg_ prefix is ours, not required")
        for bad in ["", "msg_a.b", ".", "msg_a b", "msg_\t", "msg_é", "msg_\u{0}", String(repeating: "a", count: 257)] {
            #expect(throws: StandardWebhookError(.invalidMessageID, ""), "\(bad.debugDescription)") { try WebhookMessageID(bad) }
        }
        #expect(try WebhookMessageID(String(repeating: "a", count: 256)).text.count == 256)
    }
}

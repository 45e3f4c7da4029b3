import EntitlementDomain
import Testing

/// What is known of an acknowledgement when the store's data arrives: the server's progress is never undone, and only
/// the store saying it is acknowledged ends what was owed.
@Suite struct PurchaseAcknowledgementTests {
    static let now = UnixTime(milliseconds: 1_000)
    static let pending = PurchaseAcknowledgement(state: .pending, attempts: 2, dueAt: UnixTime(milliseconds: 900), lastError: "503")
    static let failed = PurchaseAcknowledgement(state: .failed, attempts: 40, lastError: "refused")
    static let acknowledged = PurchaseAcknowledgement(state: .acknowledged, attempts: 1)

    @Test func aPurchaseSeenForTheFirstTimeTakesWhatTheStoreSays() {
        #expect(PurchaseAcknowledgement.combine(stored: nil, incoming: .pending(at: Self.now)) == .pending(at: Self.now))
        #expect(PurchaseAcknowledgement.combine(stored: nil, incoming: .notRequired) == .notRequired)
        #expect(PurchaseAcknowledgement.pending(at: Self.now) == PurchaseAcknowledgement(state: .pending, dueAt: Self.now))
    }

    @Test func theStoreSayingItIsAcknowledgedEndsAPendingOrFailedOne() {
        for stored in [Self.pending, Self.failed] {
            #expect(
                PurchaseAcknowledgement.combine(stored: stored, incoming: PurchaseAcknowledgement(state: .acknowledged))
                    == PurchaseAcknowledgement(state: .acknowledged, attempts: stored.attempts))
        }
    }

    /// Google's data owes nothing for a purchase that expired or was refunded unacknowledged: that is no
    /// acknowledgement, and the server must not claim one.
    @Test func theStoreOwingNothingNowLeavesAPendingOrFailedOneAsItIs() {
        for stored in [Self.pending, Self.failed] {
            #expect(PurchaseAcknowledgement.combine(stored: stored, incoming: .notRequired) == stored)
        }
    }

    @Test func acknowledgedBeforeTheServerOwedAnythingIsNotTheServers() {
        for stored in [nil, PurchaseAcknowledgement.notRequired] {
            #expect(
                PurchaseAcknowledgement.combine(stored: stored, incoming: PurchaseAcknowledgement(state: .acknowledged))
                    == .notRequired)
        }
    }

    @Test func theStoreStillSayingPendingKeepsTheServersProgress() {
        #expect(PurchaseAcknowledgement.combine(stored: Self.pending, incoming: .pending(at: Self.now)) == Self.pending)
        #expect(PurchaseAcknowledgement.combine(stored: Self.failed, incoming: .pending(at: Self.now)) == Self.failed)
    }

    @Test func acknowledgedStaysAcknowledged() {
        for incoming in [PurchaseAcknowledgement.notRequired, .pending(at: Self.now)] {
            #expect(PurchaseAcknowledgement.combine(stored: Self.acknowledged, incoming: incoming) == Self.acknowledged)
        }
    }

    @Test func aPurchaseThatNeededNoneTakesWhatTheStoreSaysNow() {
        #expect(PurchaseAcknowledgement.combine(stored: .notRequired, incoming: .notRequired) == .notRequired)
        // A pending one-time purchase needs none until Google says purchased; then it is owed.
        #expect(PurchaseAcknowledgement.combine(stored: .notRequired, incoming: .pending(at: Self.now)) == .pending(at: Self.now))
    }
}

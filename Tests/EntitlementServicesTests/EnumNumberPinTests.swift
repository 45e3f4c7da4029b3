import EntitlementDomain
import EntitlementsProto
import EntitlementStorage
import Testing

@testable import EntitlementServices

/// Every domain enum against the numbers the API and the database use for it. The domain's enums carry no numbers
/// of their own; each side maps case by case, and this table is what both must agree with. A reordered or renamed
/// case, or a new one mapped carelessly, fails here before it reaches a client or a database file.
@Suite struct EnumNumberPinTests {
    @Test func eventCauses() {
        let pins: [(EventCause, proto: Int32, column: Int64)] = [
            (.created, 1, 1), (.merged, 2, 2), (.purchase, 3, 3), (.restore, 4, 4), (.transferredIn, 5, 5),
            (.transferredOut, 6, 6), (.appStoreNotification, 7, 7), (.playStoreNotification, 8, 8), (.grant, 9, 9),
            (.revoke, 10, 10), (.expiry, 11, 11), (.storeAPI, 12, 12),
            (.stripeWebhook, 13, 13), (.redemption, 14, 14), (.support, 15, 15), (.attributes, 16, 16),
            (.offerSigned, 17, 17),
        ]
        #expect(pins.count == EventCause.allCases.count)
        for (cause, proto, column) in pins {
            #expect(CustomerEvent.Cause(cause).rawValue == proto, "\(cause)")
            #expect(StorageColumns.cause(cause) == column, "\(cause)")
        }
    }

    @Test func acknowledgements() {
        let pins: [(PurchaseAcknowledgement.State, proto: Int32, column: String)] = [
            (.notRequired, 1, "not_required"), (.pending, 2, "pending"), (.acknowledged, 3, "acknowledged"),
            (.failed, 4, "failed"),
        ]
        #expect(pins.count == PurchaseAcknowledgement.State.allCases.count)
        for (state, proto, column) in pins {
            #expect(Transaction.Acknowledgement(state).rawValue == proto, "\(state)")
            #expect(StorageColumns.acknowledgement(state) == column, "\(state)")
        }
    }

    @Test func statusChanges() {
        let pins: [(StatusChange, proto: Int32, column: Int64)] = [(.statusChanged, 2, 2), (.customerInfoChanged, 3, 3)]
        #expect(pins.count == StatusChange.allCases.count)
        for (change, proto, column) in pins {
            #expect(StatusEvent.Kind(change).rawValue == proto, "\(change)")
            #expect(StorageColumns.change(change) == column, "\(change)")
        }
    }

    @Test func stores() {
        let pins: [(EntitlementDomain.Store, proto: Int32, column: Int64)] = [
            (.appStore, 1, 1), (.playStore, 2, 2), (.stripe, 3, 3),
        ]
        #expect(pins.count == EntitlementDomain.Store.allCases.count)
        for (store, proto, column) in pins {
            #expect(EntitlementsProto.Store(store).rawValue == proto, "\(store)")
            #expect(StorageColumns.store(store) == column, "\(store)")
        }
    }

    @Test func entitlementSources() {
        // The API's Store numbers, and the numbers recorded statuses (event history) carry.
        let pins: [(EntitlementSource, proto: Int32, recorded: Int32)] = [
            (.appStore, 1, 1), (.playStore, 2, 2), (.stripe, 3, 3), (.grant, 4, 4),
        ]
        #expect(pins.count == EntitlementSource.allCases.count)
        for (source, proto, recorded) in pins {
            #expect(EntitlementsProto.Store(source).rawValue == proto, "\(source)")
            #expect(source.storedStatusNumber == recorded, "\(source)")
            #expect(EntitlementSource(storedStatusNumber: recorded) == source)
        }
    }

    @Test func environments() {
        let pins: [(PurchaseEnvironment, proto: Int32, column: String)] = [
            (.production, 1, "Production"), (.sandbox, 2, "Sandbox"), (.xcode, 3, "Xcode"),
            (.localTesting, 4, "LocalTesting"),
        ]
        #expect(pins.count == PurchaseEnvironment.allCases.count)
        for (environment, proto, column) in pins {
            #expect(StoreEnvironment(environment).rawValue == proto, "\(environment)")
            #expect(StorageColumns.environment(environment) == column, "\(environment)")
        }
    }

    @Test func ownershipsAndOrigins() {
        let ownerships: [(PurchaseOwnership, proto: Int32, column: String)] = [
            (.purchased, 1, "PURCHASED"), (.familyShared, 2, "FAMILY_SHARED"),
        ]
        #expect(ownerships.count == PurchaseOwnership.allCases.count)
        for (ownership, proto, column) in ownerships {
            #expect(Transaction.Ownership(ownership).rawValue == proto, "\(ownership)")
            #expect(StorageColumns.ownership(ownership) == column, "\(ownership)")
        }
        let origins: [(PurchaseOrigin, column: String)] = [
            (.device, "device"), (.notification, "notification"), (.storeAPI, "store_api"),
        ]
        #expect(origins.count == PurchaseOrigin.allCases.count)
        for (origin, column) in origins { #expect(StorageColumns.origin(origin) == column, "\(origin)") }
    }

    @Test func metrics() {
        let metrics: [(RevenueMetric, proto: Int32)] = [
            (.revenue, 1), (.refunds, 2), (.netRevenue, 3), (.proceeds, 4), (.newSubscriptions, 5), (.trialStarts, 6),
            (.trialConversions, 7), (.renewals, 8), (.refundRate, 9), (.activeSubscriptions, 10), (.activeTrials, 11),
            (.mrr, 12), (.churn, 13), (.reactivations, 14), (.trialConversionRate, 15), (.gracePeriodSubscriptions, 16),
            (.billingRetrySubscriptions, 17), (.gracePeriodMRR, 18), (.billingRetryMRR, 19),
        ]
        #expect(metrics.count == RevenueMetric.allCases.count)
        for (metric, proto) in metrics { #expect(Metric(metric).rawValue == proto, "\(metric)") }
        let dimensions: [(RevenueDimension, proto: Int32)] = [
            (.store, 1), (.product, 2), (.entitlements, 3), (.country, 4), (.offer, 5),
        ]
        #expect(dimensions.count == RevenueDimension.allCases.count)
        for (dimension, proto) in dimensions { #expect(MetricDimension(dimension).rawValue == proto, "\(dimension)") }
    }
}

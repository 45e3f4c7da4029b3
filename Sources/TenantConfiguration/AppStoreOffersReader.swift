import EntitlementDomain

/// A tenant's `app_store.offers` (see ``AppStoreOffers`` for the format): the JSON shapes here, every rule from the
/// domain.
extension TenantConfigReader {
    static let offersFields = ["promotional", "introductory", "_comment"]
    static let promotionalOfferFields = [
        "products", "customers", "lapsed_days", "refunded", "limit", "starts_at", "ends_at", "_comment",
    ]
    static let offerLimitFields = ["count", "days"]
    static let introductoryOfferFields = ["history", "_comment"]

    /// `app_store.offers`; `hasKey`: `app_store.server_api` is configured.
    func appStoreOffers(_ node: JSONNode, path: String, mappedProducts: [String: [String]], hasKey: Bool)
        throws(TenantConfigError) -> AppStoreOffers
    {
        let members = try object(node, path: path, allowed: Self.offersFields, what: "\"offers\"")
        try rule(node, path) { () throws(TenantRuleError) in try AppStoreOffers.checkKeyConfigured(hasKey) }
        var offers = AppStoreOffers()
        if let promotionalNode = members["promotional"] {
            let promotionalPath = path + ".promotional"
            guard case .object(let offerMembers) = promotionalNode.value else {
                throw typeMismatch(promotionalNode, promotionalPath, expected: "an object of offer identifier → {\"products\": ...}")
            }
            try rule(promotionalNode, promotionalPath) { () throws(TenantRuleError) in
                try AppStoreOffers.checkCount(offerMembers.count)
            }
            for member in offerMembers {
                let offerPath = "\(promotionalPath)[\"\(member.key)\"]"
                try rule(member.value, offerPath) { () throws(TenantRuleError) in try AppStoreOffers.checkOfferID(member.key) }
                offers.promotional[member.key] = try promotionalOffer(
                    member.value, path: offerPath, mappedProducts: mappedProducts)
            }
        }
        if let introductoryNode = members["introductory"] {
            let introductoryPath = path + ".introductory"
            let introductory = try object(
                introductoryNode, path: introductoryPath, allowed: Self.introductoryOfferFields, what: "\"introductory\"")
            offers.introductory = try optionalStringValue("history", of: introductory, at: introductoryPath, absent: .allStores) {
                text throws(TenantRuleError) in try IntroductoryOfferHistory.named(text)
            }
        }
        return offers
    }

    private func promotionalOffer(_ node: JSONNode, path: String, mappedProducts: [String: [String]])
        throws(TenantConfigError) -> PromotionalOfferRules
    {
        let members = try object(node, path: path, allowed: Self.promotionalOfferFields, what: "a promotional offer")
        let (products, _, _) = try requiredList(
            "products", of: members, in: node, at: path, "the subscriptions the offer is set up on in App Store Connect",
            count: { count throws(TenantRuleError) in try PromotionalOfferRules.checkProductsListed(count: count) }
        ) { id, earlier throws(TenantRuleError) in
            try PromotionalOfferRules.checkProduct(id, listedAfter: earlier, mapped: mappedProducts[id] != nil)
            return id
        }
        var audience = try optionalStringValue("customers", of: members, at: path, absent: OfferAudience.anyone) {
            text throws(TenantRuleError) in try PromotionalOfferRules.audience(named: text)
        }
        if let daysNode = members["lapsed_days"] {
            guard case .lapsed = audience else {
                throw error(
                    .conflictingFields, daysNode, path + ".lapsed_days",
                    "\"lapsed_days\" applies only to \"customers\": \"lapsed\"")
            }
            audience = .lapsed(
                days: try optionalNumber("lapsed_days", of: members, at: path, absent: 1) {
                    value, text throws(TenantRuleError) in try PromotionalOfferRules.checkLapsedDays(value, written: text)
                })
        }
        let refunded: Bool? = members["refunded"] == nil
            ? nil : try optionalFlag("refunded", of: members, at: path, absent: false)
        let limit = try members["limit"].map { limitNode throws(TenantConfigError) in
            try offerLimit(limitNode, path: path + ".limit")
        }
        let startsAt = try optionalStringValue("starts_at", of: members, at: path, absent: nil) {
            text throws(TenantRuleError) -> UnixTime? in try PromotionalOfferRules.instant(text)
        }
        let endsAt = try optionalStringValue("ends_at", of: members, at: path, absent: nil) {
            text throws(TenantRuleError) -> UnixTime? in try PromotionalOfferRules.instant(text)
        }
        if let endsNode = members["ends_at"] {
            try rule(endsNode, path + ".ends_at") { () throws(TenantRuleError) in
                try PromotionalOfferRules.checkWindow(startsAt, endsAt)
            }
        }
        return PromotionalOfferRules(
            productIDs: products, audience: audience, refunded: refunded, limit: limit, startsAt: startsAt, endsAt: endsAt)
    }

    private func offerLimit(_ node: JSONNode, path: String) throws(TenantConfigError) -> OfferLimit {
        let members = try object(node, path: path, allowed: Self.offerLimitFields, what: "\"limit\"")
        for key in Self.offerLimitFields where members[key] == nil {
            throw error(.missingField, node, path, "missing \"\(key)\": a limit is {\"count\": 1, \"days\": 365}")
        }
        let count = try optionalNumber("count", of: members, at: path, absent: 0) { value, text throws(TenantRuleError) in
            try PromotionalOfferRules.checkLimitCount(value, written: text)
        }
        let days = try optionalNumber("days", of: members, at: path, absent: 0) { value, text throws(TenantRuleError) in
            try PromotionalOfferRules.checkLimitDays(value, written: text)
        }
        return OfferLimit(count: count, days: days)
    }
}

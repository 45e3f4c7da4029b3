import EntitlementDomain

/// A tenant's `commission` object (see ``Commissions`` for the format): the JSON shapes here, every rule from the
/// domain. A store left out keeps its default rates.
extension TenantConfigReader {
    static let commissionFields = ["app_store", "play_store", "stripe", "_comment"]
    static let storeCommissionFields = ["percent", "after_first_year_percent", "products", "_comment"]

    func commissions(_ node: JSONNode, path: String) throws(TenantConfigError) -> Commissions {
        let members = try object(node, path: path, allowed: Self.commissionFields, what: "\"commission\"")
        var commissions = Commissions.defaults
        if let store = members["app_store"] { commissions.appStore = try storeCommission(store, path: path + ".app_store") }
        if let store = members["play_store"] {
            commissions.playStore = try storeCommission(store, path: path + ".play_store")
        }
        if let store = members["stripe"] { commissions.stripe = try storeCommission(store, path: path + ".stripe") }
        return commissions
    }

    private func storeCommission(_ node: JSONNode, path: String) throws(TenantConfigError) -> StoreCommission {
        let members = try object(node, path: path, allowed: Self.storeCommissionFields, what: "a store's commission")
        guard let percent = members["percent"] else {
            throw error(
                .missingField, node, path,
                "missing \"percent\": the share of each payment the store keeps (30 for Apple's standard rate)")
        }
        var commission = StoreCommission(
            rate: try rate(percent, path: path + ".percent"),
            afterFirstYear: try members["after_first_year_percent"].map { node throws(TenantConfigError) in
                try rate(node, path: path + ".after_first_year_percent")
            })
        if let productsNode = members["products"] {
            guard case .object(let products) = productsNode.value else {
                throw typeMismatch(productsNode, path + ".products", expected: "an object of product ID → percent")
            }
            for product in products {
                let productPath = "\(path).products[\"\(product.key)\"]"
                try rule(product.value, productPath) { () throws(TenantRuleError) in try Tenant.checkProductID(product.key) }
                commission.products[product.key] = try rate(product.value, path: productPath)
            }
        }
        return commission
    }

    private func rate(_ node: JSONNode, path: String) throws(TenantConfigError) -> CommissionRate {
        let text = try number(node, path: path)
        return try rule(node, path) { () throws(TenantRuleError) in try CommissionRate(percent: text) }
    }
}

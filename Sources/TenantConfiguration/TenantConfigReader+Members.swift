import EntitlementDomain

/// The members the settings objects share in form: a required one, and optional ones (a flag, a whole number or a
/// string checked by one of the domain's rules, a store's `products`), which give the value that stands when absent.
extension TenantConfigReader {
    /// The member `key` of `members` (the object `node` at `path`); its absence is explained by `what`.
    func requiredMember(
        _ key: String, of members: [String: JSONNode], in node: JSONNode, at path: String, _ what: String
    ) throws(TenantConfigError) -> JSONNode {
        guard let member = members[key] else { throw error(.missingField, node, path, "missing \"\(key)\": \(what)") }
        return member
    }

    /// The member `key`: a string, which `read` reads.
    func requiredStringValue<T>(
        _ key: String, of members: [String: JSONNode], in node: JSONNode, at path: String, _ what: String,
        _ read: (String) throws(TenantRuleError) -> T
    ) throws(TenantConfigError) -> T {
        let member = try requiredMember(key, of: members, in: node, at: path, what)
        let text = try string(member, path: path + "." + key)
        return try rule(member, path + "." + key) { () throws(TenantRuleError) in try read(text) }
    }

    /// The member `key`: a string, which `check` accepts.
    func requiredString(
        _ key: String, of members: [String: JSONNode], in node: JSONNode, at path: String, _ what: String,
        _ check: (String) throws(TenantRuleError) -> Void
    ) throws(TenantConfigError) -> String {
        try requiredStringValue(key, of: members, in: node, at: path, what) { text throws(TenantRuleError) in
            try check(text)
            return text
        }
    }

    /// The member `key`: a list, whose length `count` checks, of strings, each of which `element` reads given the
    /// elements before it. With the list's node, and its elements' by relative path (`[1]`), for rules on the whole.
    func requiredList<Element>(
        _ key: String, of members: [String: JSONNode], in node: JSONNode, at path: String, _ what: String,
        count: (Int) throws(TenantRuleError) -> Void, _ element: (String, [Element]) throws(TenantRuleError) -> Element
    ) throws(TenantConfigError) -> (elements: [Element], node: JSONNode, nodes: [String: JSONNode]) {
        let listNode = try requiredMember(key, of: members, in: node, at: path, what)
        let listPath = path + "." + key
        let elementNodes = try array(listNode, path: listPath)
        try rule(listNode, listPath) { () throws(TenantRuleError) in try count(elementNodes.count) }
        var elements: [Element] = []
        var nodes: [String: JSONNode] = [:]
        for (index, elementNode) in elementNodes.enumerated() {
            let elementPath = "\(listPath)[\(index)]"
            let text = try string(elementNode, path: elementPath)
            let listed = elements
            elements.append(
                try rule(elementNode, elementPath) { () throws(TenantRuleError) in try element(text, listed) })
            nodes["[\(index)]"] = elementNode
        }
        return (elements, listNode, nodes)
    }

    /// ``requiredList(_:of:in:at:_:count:_:)`` of names, each of which `named` reads, none listed twice.
    func requiredNames<Name: Equatable>(
        _ key: String, of members: [String: JSONNode], in node: JSONNode, at path: String, _ what: String,
        count: (Int) throws(TenantRuleError) -> Void, _ named: (String) throws(TenantRuleError) -> Name
    ) throws(TenantConfigError) -> (elements: [Name], node: JSONNode, nodes: [String: JSONNode]) {
        try requiredList(key, of: members, in: node, at: path, what, count: count) {
            text, listed throws(TenantRuleError) in
            let name = try named(text)
            try ListRule.checkNotListed(name, written: text, in: listed)
            return name
        }
    }

    /// The member `key` of `members` (the object at `path`): true or false.
    func optionalFlag(_ key: String, of members: [String: JSONNode], at path: String, absent: Bool)
        throws(TenantConfigError) -> Bool
    {
        guard let node = members[key] else { return absent }
        guard case .bool(let flag) = node.value else {
            throw typeMismatch(node, path + "." + key, expected: "true or false")
        }
        return flag
    }

    /// The member `key`: a number, which `check` reads as the `Int` it holds (nil when it holds none) and its text.
    func optionalNumber<T>(
        _ key: String, of members: [String: JSONNode], at path: String, absent: T,
        _ check: (Int?, String) throws(TenantRuleError) -> T
    ) throws(TenantConfigError) -> T {
        guard let node = members[key] else { return absent }
        let memberPath = path + "." + key
        let text = try number(node, path: memberPath)
        return try rule(node, memberPath) { () throws(TenantRuleError) in try check(Int(text), text) }
    }

    /// The member `key`: a string, which `read` reads.
    func optionalStringValue<T>(
        _ key: String, of members: [String: JSONNode], at path: String, absent: T,
        _ read: (String) throws(TenantRuleError) -> T
    ) throws(TenantConfigError) -> T {
        guard let node = members[key] else { return absent }
        let memberPath = path + "." + key
        let text = try string(node, path: memberPath)
        return try rule(node, memberPath) { () throws(TenantRuleError) in try read(text) }
    }

    /// The member `key`: a string, which `check` accepts.
    func optionalString(
        _ key: String, of members: [String: JSONNode], at path: String, absent: String,
        _ check: (String) throws(TenantRuleError) -> Void
    ) throws(TenantConfigError) -> String {
        try optionalStringValue(key, of: members, at: path, absent: absent) { text throws(TenantRuleError) in
            try check(text)
            return text
        }
    }

    /// `transfer_policy`, which every store's settings take.
    func optionalTransferPolicy(of members: [String: JSONNode], at path: String) throws(TenantConfigError)
        -> TransferPolicy
    {
        try optionalStringValue("transfer_policy", of: members, at: path, absent: .transfer) {
            text throws(TenantRuleError) in try TransferPolicy.named(text)
        }
    }

    /// A store's `products`: each product ID, checked, → what `product` reads from its object (given the object, its
    /// path and the ID).
    func optionalStoreProducts<Product>(
        of members: [String: JSONNode], at path: String,
        _ product: (JSONNode, String, String) throws(TenantConfigError) -> Product
    ) throws(TenantConfigError) -> [String: Product] {
        guard let productsNode = members["products"] else { return [:] }
        let productsPath = path + ".products"
        guard case .object(let productMembers) = productsNode.value else {
            throw typeMismatch(productsNode, productsPath, expected: "an object of product ID → {\"type\": ...}")
        }
        var products: [String: Product] = [:]
        for member in productMembers {
            let productPath = "\(productsPath)[\"\(member.key)\"]"
            try rule(member.value, productPath) { () throws(TenantRuleError) in try Tenant.checkProductID(member.key) }
            products[member.key] = try product(member.value, productPath, member.key)
        }
        return products
    }
}

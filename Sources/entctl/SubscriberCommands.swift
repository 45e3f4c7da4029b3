import EntitlementClient
import EntitlementsProto
import ProtobufWire

/// `customers`, `count` and `find`: the tenant's customers as a whole, and what one ID names (AdminService, a
/// secret key).
extension Entctl {
    /// `customers [filters] [--page-size N] [--page-token T] [--all]`: one page, or with `--all` every page from the
    /// token on. `--json` prints one object per page.
    func customers() async throws -> Int32 {
        try arguments.check(
            positionals: [],
            options: [
                "--entitlement", "--store", "--product", "--state", "--changed-since", "--page-size", "--page-token",
                "--all",
            ])
        var request = ListCustomersRequest()
        request.entitlementID = arguments.value("--entitlement") ?? ""
        request.productID = arguments.value("--product") ?? ""
        if let text = arguments.value("--store") { request.store = try Self.named(Store.self, text, option: "--store") }
        if let text = arguments.value("--state") {
            request.state = try Self.named(ListCustomersRequest.State.self, text, option: "--state")
        }
        if let text = arguments.value("--changed-since") {
            guard let since = TimeText.parseRFC3339(text) else {
                throw UsageError(
                    description: "invalid --changed-since '\(text)': expected RFC 3339 such as 2030-01-31T12:00:00Z")
            }
            request.changedSince = since
        }
        request.pageSize = try arguments.integer("--page-size", Int32.self, minimum: 1) ?? 0
        request.pageToken = arguments.value("--page-token") ?? ""
        let all = arguments.flag("--all")
        let client = try connect(.secretKey)
        var printedAny = false
        repeat {
            let page = try await client.listCustomers(request)
            printer.print(page, human: page.customers.flatMap(HumanOutput.listedCustomer))
            printedAny = printedAny || !page.customers.isEmpty
            request.pageToken = page.nextPageToken
        } while all && !request.pageToken.isEmpty
        if !printer.json {
            if !printedAny { Output.line("no customers") }
            if !request.pageToken.isEmpty { Output.line("more: --page-token \(request.pageToken)") }
        }
        return 0
    }

    /// `count`
    func count() async throws -> Int32 {
        try arguments.check(positionals: [])
        let response = try await connect(.secretKey).countCustomers()
        printer.print(response, human: HumanOutput.customerCounts(response))
        return 0
    }

    /// `trust`
    func trust() async throws -> Int32 {
        try arguments.check(positionals: [])
        let response = try await connect(.secretKey).describeTrust()
        printer.print(response, human: HumanOutput.trust(response))
        return 0
    }

    /// `find ID`
    func find() async throws -> Int32 {
        try arguments.check(positionals: ["ID"])
        let response = try await connect(.secretKey).findCustomers(arguments.positionals[0])
        printer.print(response, human: response.matches.isEmpty ? ["nothing found"] : response.matches.map(HumanOutput.customerMatch))
        return 0
    }

    /// The value whose proto name is `text` (any case; the UNSPECIFIED one is not offered).
    private static func named<Value: NamedProtoEnum>(_ type: Value.Type, _ text: String, option: String)
        throws(UsageError) -> Value
    {
        let offered = Value.names.dropFirst()
        guard let index = offered.firstIndex(of: text.uppercased()) else {
            throw UsageError(description: "invalid \(option) '\(text)': expected \(offered.joined(separator: ", "))")
        }
        return Value(rawValue: Int32(index))
    }
}

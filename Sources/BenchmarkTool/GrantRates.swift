import CivilCalendar
import EntitlementClient
import PosixIO

/// `grant-rate`: COUNT `GrantEntitlement` calls (`pro` for 30 days) spread over CUSTOMERS customers
/// `bench-hook-<n>`, CONCURRENCY in flight: each a durable commit with its event, and the webhook outbox rows the
/// tenant's endpoints want in the same transaction.
enum GrantRates {
    static func run(address: ListenAddress, secretKey: String, count: Int, concurrency: Int, customers: Int) async throws {
        try await RPCRates.run(address: address, publicKey: secretKey, count: count, concurrency: concurrency) {
            client, index in
            _ = try await client.grantEntitlement(
                appUserID: "bench-hook-\(index % customers)", entitlementID: "pro", duration: .seconds(30 * Seconds.perDay))
        }
    }
}

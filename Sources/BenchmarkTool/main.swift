// entitlementd-bench: the Swift half of Scripts/benchmark.
//
//   entitlementd-bench seed DATABASE TENANT CUSTOMERS
//       Creates CUSTOMERS customers `bench-user-<n>` through the real engine (durability relaxed to NORMAL so seeding
//       takes seconds), and gives `bench-user-0` two lifetime entitlements, `pro` and `premium`. DATABASE is a SQLite
//       path or postgres:CONNINFO.
//   entitlementd-bench subscriber-queries DATABASE CUSTOMERS RUNS
//       Seeds CUSTOMERS customers with a mix of entitlements into a new DATABASE through the storage layer, then times
//       CountCustomers and ListCustomers pages (the engine's queries), RUNS times each; prints medians.
//   entitlementd-bench revenue-seed DATABASE CUSTOMERS
//       Seeds CUSTOMERS customers with a subscription each (about five revenue ledger rows a customer, two years of
//       them) and the daily totals and events the engine keeps beside them, through the storage layer.
//   entitlementd-bench revenue-queries DATABASE RUNS
//       Times the metric series of the last 365 days a dashboard asks for (MRR, actives, revenue, churn, trial
//       conversion), RUNS times each, as GetMetrics runs them; prints medians.
//   entitlementd-bench open DATABASE
//       Opens DATABASE as the server does (applying pending migrations, backfills included) and prints how long it took.
//   entitlementd-bench push-latency HOST:PORT[,HOST:PORT...] PUBLIC_KEY SECRET_KEY STREAMS SAMPLES
//       Opens STREAMS StatusStream calls (customers bench-user-0 ..., 100 per connection, the connections spread over
//       the servers listed), then SAMPLES times grants `pro` to a streamed customer (through the next server in the
//       list from the one holding its stream: with several instances every sample crosses instances) and measures
//       from GrantEntitlement returning to the StatusEvent arriving. Prints "open streams" once every snapshot has
//       arrived, then waits 2 s before the first grant (the script reads the server's memory meanwhile).
//   entitlementd-bench restart-storm HOST:PORT PID PUBLIC_KEY SECRET_KEY STREAMS
//       Opens STREAMS StatusStream calls (bench-user-<n>, 100 per connection) on the server PID, gives customers still
//       at version 1 one grant there, prints "ready", and on reading a second server's HOST:PORT from standard input
//       kills PID and resumes every stream there at once, after_version one below the version it saw; prints the time
//       from the kill until every stream's replayed event arrived.
//   entitlementd-bench verify-rate SECONDS
//       Verifies one locally signed transaction again and again on one thread for SECONDS seconds (chain cached: one
//       ES256 verify, parsing and identity checks per token) and prints the rate.
//   entitlementd-bench offer-sign-rate SECONDS
//       Signs offers on one thread for SECONDS seconds in each of StoreKit's formats (StoreKit 1 signature, promotional
//       offer JWS, introductory offer eligibility JWS), each with a fresh nonce, and prints each rate.
//   entitlementd-bench purchase-rate HOST:PORT PUBLIC_KEY CA_DIR COUNT CONCURRENCY [FIRST]
//       Signs COUNT transactions (original transaction IDs 2000000000000 + n for n from FIRST, default 0,
//       com.example.pro.monthly, com.example.app, Sandbox) with the CA saved in CA_DIR, then sends `Purchase` for user
//       bench-buyer-<n>, CONCURRENCY calls in flight over up to 4 connections.
//   entitlementd-bench notify-rate HOST:PORT TENANT CA_DIR COUNT CONCURRENCY [FIRST]
//       Signs COUNT DID_RENEW notifications renewing those same original transactions, then POSTs them to
//       /v1/apple/notifications/TENANT over CONCURRENCY HTTP/1.1 keep-alive connections; every answer must be 200.
//   entitlementd-bench play-purchase-rate HOST:PORT PUBLIC_KEY COUNT CONCURRENCY
//       Sends `Purchase` with Play tokens bench-play-<n> (pro_monthly) for users bench-android-<n>; the server asks the
//       fake Google for each.
//   entitlementd-bench play-notify-rate HOST:PORT TENANT AUDIENCE EMAIL KEY_PEM KID PACKAGE COUNT CONCURRENCY
//       POSTs SUBSCRIPTION_RENEWED notifications for those tokens, each with a push token signed by KEY_PEM.
//   entitlementd-bench grant-rate HOST:PORT SECRET_KEY COUNT CONCURRENCY CUSTOMERS
//       Sends COUNT `GrantEntitlement` calls (pro, 30 days) to customers bench-hook-<n % CUSTOMERS>.
//   entitlementd-bench fake-rate API_BASE ACCESS_TOKEN PACKAGE COUNT CONCURRENCY
//       Reads the same subscriptions straight from the fake: the reference for the two above.
import PosixIO
import RPCCore

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    var bytes = Array("entitlementd-bench: \(message)\n".utf8)
    _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(2)
}

/// `text` as a positive whole number; otherwise the usage line and exit.
func positive(_ text: String, _ usage: String) -> Int {
    guard let value = Int(text), value > 0 else { fail("usage: " + usage) }
    return value
}

/// `text` as a first index (0 up to a billion, so that IDs made from it stay in range); otherwise the usage line and exit.
func index(_ text: String, _ usage: String) -> Int {
    guard let value = Int(text), (0...1_000_000_000).contains(value) else { fail("usage: " + usage) }
    return value
}

/// `text` as HOST:PORT; otherwise the usage line and exit.
func address(_ text: String, _ usage: String) -> ListenAddress {
    guard let address = try? ListenAddress.parse(text).get() else { fail("usage: " + usage) }
    return address
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "seed" where arguments.count == 4:
    guard let count = Int(arguments[3]), count > 0 else { fail("CUSTOMERS must be a positive integer") }
    try await Seeder.seed(databasePath: arguments[1], tenantID: arguments[2], customers: count)
case "subscriber-queries" where arguments.count == 4:
    let usage = "subscriber-queries DATABASE CUSTOMERS RUNS"
    try await SubscriberQueriesBench.run(
        databasePath: arguments[1], customers: positive(arguments[2], usage), runs: positive(arguments[3], usage))
case "revenue-seed" where arguments.count == 3:
    try RevenueMetricsBench.seed(
        databasePath: arguments[1], customers: positive(arguments[2], "revenue-seed DATABASE CUSTOMERS"))
case "revenue-queries" where arguments.count == 3:
    try RevenueMetricsBench.queries(databasePath: arguments[1], runs: positive(arguments[2], "revenue-queries DATABASE RUNS"))
case "open" where arguments.count == 2:
    try SubscriberQueriesBench.open(databasePath: arguments[1])
case "push-latency" where arguments.count == 6:
    let addresses = arguments[1].split(separator: ",").compactMap { try? ListenAddress.parse(String($0)).get() }
    guard !addresses.isEmpty, let streams = Int(arguments[4]), let samples = Int(arguments[5]) else {
        fail("usage: push-latency HOST:PORT[,HOST:PORT...] PUBLIC_KEY SECRET_KEY STREAMS SAMPLES")
    }
    try await PushLatency.measure(
        addresses: addresses, publicKey: arguments[2], secretKey: arguments[3], streams: streams, samples: samples)
case "restart-storm" where arguments.count == 6:
    let usage = "restart-storm HOST:PORT PID PUBLIC_KEY SECRET_KEY STREAMS"
    guard let pid = Int32(arguments[2]), pid > 0 else { fail("usage: " + usage) }
    try await RestartStorm.measure(
        first: address(arguments[1], usage), firstPID: pid, publicKey: arguments[3], secretKey: arguments[4],
        streams: positive(arguments[5], usage))
case "verify-rate" where arguments.count == 2:
    guard let seconds = Double(arguments[1]), seconds > 0 else { fail("usage: verify-rate SECONDS") }
    try VerifyRate.measure(seconds: seconds)
case "offer-sign-rate" where arguments.count == 2:
    guard let seconds = Double(arguments[1]), seconds > 0 else { fail("usage: offer-sign-rate SECONDS") }
    try OfferSignRate.measure(seconds: seconds)
case "purchase-rate" where arguments.count == 6 || arguments.count == 7:
    let usage = "purchase-rate HOST:PORT PUBLIC_KEY CA_DIR COUNT CONCURRENCY [FIRST]"
    try await AppStoreBench.purchaseRate(
        address: address(arguments[1], usage), publicKey: arguments[2], caDirectory: arguments[3],
        count: positive(arguments[4], usage), concurrency: positive(arguments[5], usage),
        first: arguments.count == 7 ? index(arguments[6], usage) : 0)
case "notify-rate" where arguments.count == 6 || arguments.count == 7:
    let usage = "notify-rate HOST:PORT TENANT CA_DIR COUNT CONCURRENCY [FIRST]"
    try await AppStoreBench.notifyRate(
        address: address(arguments[1], usage), tenant: arguments[2], caDirectory: arguments[3],
        count: positive(arguments[4], usage), concurrency: positive(arguments[5], usage),
        first: arguments.count == 7 ? index(arguments[6], usage) : 0)
case "play-purchase-rate" where arguments.count == 5:
    let usage = "play-purchase-rate HOST:PORT PUBLIC_KEY COUNT CONCURRENCY"
    try await PlayBench.purchaseRate(
        address: address(arguments[1], usage), publicKey: arguments[2], count: positive(arguments[3], usage),
        concurrency: positive(arguments[4], usage))
case "play-notify-rate" where arguments.count == 10:
    let usage = "play-notify-rate HOST:PORT TENANT AUDIENCE EMAIL KEY_PEM KID PACKAGE COUNT CONCURRENCY"
    try await PlayBench.notifyRate(
        address: address(arguments[1], usage), tenant: arguments[2], audience: arguments[3], email: arguments[4],
        keyPath: arguments[5], kid: arguments[6], package: arguments[7], count: positive(arguments[8], usage),
        concurrency: positive(arguments[9], usage))
case "fake-rate" where arguments.count == 6:
    let usage = "fake-rate API_BASE ACCESS_TOKEN PACKAGE COUNT CONCURRENCY"
    try await PlayBench.fakeRate(
        apiBase: arguments[1], accessToken: arguments[2], package: arguments[3], count: positive(arguments[4], usage),
        concurrency: positive(arguments[5], usage))
case "stripe-webhook-rate" where arguments.count == 6:
    let usage = "stripe-webhook-rate HOST:PORT TENANT WEBHOOK_SECRET COUNT CONCURRENCY"
    try await StripeBench.webhookRate(
        address: address(arguments[1], usage), tenant: arguments[2], secret: arguments[3],
        count: positive(arguments[4], usage), concurrency: positive(arguments[5], usage))
case "grant-rate" where arguments.count == 6:
    let usage = "grant-rate HOST:PORT SECRET_KEY COUNT CONCURRENCY CUSTOMERS"
    try await GrantRates.run(
        address: address(arguments[1], usage), secretKey: arguments[2], count: positive(arguments[3], usage),
        concurrency: positive(arguments[4], usage), customers: positive(arguments[5], usage))
default:
    fail(
        "usage: seed DATABASE TENANT CUSTOMERS | subscriber-queries DATABASE CUSTOMERS RUNS | open DATABASE | push-latency HOST:PORT PUBLIC_KEY SECRET_KEY STREAMS SAMPLES"
            + " | restart-storm HOST:PORT PID PUBLIC_KEY SECRET_KEY STREAMS"
            + " | verify-rate SECONDS | offer-sign-rate SECONDS | purchase-rate HOST:PORT PUBLIC_KEY CA_DIR COUNT CONCURRENCY [FIRST]"
            + " | notify-rate HOST:PORT TENANT CA_DIR COUNT CONCURRENCY [FIRST] | play-purchase-rate HOST:PORT PUBLIC_KEY COUNT"
            + " CONCURRENCY | play-notify-rate HOST:PORT TENANT AUDIENCE EMAIL KEY_PEM KID PACKAGE COUNT CONCURRENCY"
            + " | fake-rate API_BASE ACCESS_TOKEN PACKAGE COUNT CONCURRENCY"
            + " | stripe-webhook-rate HOST:PORT TENANT WEBHOOK_SECRET COUNT CONCURRENCY"
            + " | grant-rate HOST:PORT SECRET_KEY COUNT CONCURRENCY CUSTOMERS")
}

import CivilCalendar
import Encodings
import AppStore
import HTTP1
import PosixIO
import Crypto
import Foundation
import ProtobufWire

/// `dev`: a local signing CA shaped like Apple's, and App Store signed data made with it (offline); a push-signing key
/// shaped like Google's, and Google Play notifications pushed as Pub/Sub would. The server verifies what they sign
/// exactly like the stores' own, in a tenant that trusts them.
extension Entctl {
    func dev() async throws -> Int32 {
        guard let subcommand = arguments.subcommand() else {
            throw UsageError(
                description: "dev needs a command: init, sign-transaction, sign-renewal-info, sign-notification, notify, "
                    + "play-key, play-notify, stripe, user-token or webhook-receiver")
        }
        let commands = DevCommands(
            arguments: subcommand, printer: printer, address: options.address, timeout: options.timeout)
        switch subcommand.command {
        case "dev init": return try commands.initialize()
        case "dev sign-transaction": return try commands.signTransaction()
        case "dev sign-renewal-info": return try commands.signRenewalInfo()
        case "dev sign-notification": return try commands.signNotification()
        case "dev notify": return try await commands.notify()
        case "dev play-key": return try commands.playKey()
        case "dev play-notify": return try await commands.playNotify()
        case "dev stripe": return try await commands.stripe()
        case "dev user-token": return try commands.userToken()
        case "dev webhook-receiver": return try await commands.webhookReceiver()
        default: throw CommandHelp.unknownCommand(subcommand.command)
        }
    }
}

struct DevCommands {
    typealias UsageError = EntctlOptions.UsageError

    /// A failure that is not the command line's fault (exit 1).
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The CA the signing commands use without `--dir`: the one the demo tenant trusts (relative, so entctl finds
    /// it when run from the repository root, as the README does).
    static let defaultDirectory = "Config/dev-ca"

    let arguments: CommandArguments
    let printer: Printer
    /// Where `dev notify` and `dev play-notify` post (the global `--addr`).
    let address: ListenAddress
    /// How long a post may take, connecting included (the global `--timeout`).
    let timeout: Duration

    /// `dev init --dir DIR [--force]`. There is no default directory: the default signing CA is the demo tenant's,
    /// which exists, and a new CA is only of use once a tenant trusts it, which its output says how to do.
    func initialize() throws -> Int32 {
        try arguments.check(positionals: [], options: ["--dir", "--force"])
        guard let directory = try arguments.optional("--dir") else {
            throw UsageError(
                description: "dev init needs --dir DIR: the signing commands already default to \(Self.defaultDirectory), "
                    + "the demo tenant's CA; make your own in another directory")
        }
        let files = [
            LocalSigningCA.FileName.root, LocalSigningCA.FileName.intermediate, LocalSigningCA.FileName.leaf,
            LocalSigningCA.FileName.leafKey,
        ].map { Self.path(directory, $0) }
        let existing = files.first { FileManager.default.fileExists(atPath: $0) }
        if let existing, !arguments.flag("--force") {
            throw Failure(
                description: "\(existing) exists: \(directory) already holds a local signing CA. Pass --force to "
                    + "replace it (tenants that trust the old root will reject what the new one signs).")
        }
        let now = Int64(Date().timeIntervalSince1970)
        let ca: LocalSigningCA
        do {
            // Back-dated a year so `--signed-date` can reach into the past; the leaf signs for five years from now.
            ca = try LocalSigningCA.create(validFrom: now - 365 * Seconds.perDay, validUntil: now + 5 * 365 * Seconds.perDay)
        } catch {
            throw Failure(description: "cannot create the local signing CA: \(error.message)")
        }
        try ca.save(to: directory)
        let until = TimeText.rfc3339(ProtoTimestamp(seconds: ca.leaf.notValidAfter, nanos: 0))
        let names = ["root", "intermediate", "leaf", "leafKey"]
        let paths = zip(names, files).map { name, file in (name, JSONValue.string(Self.absolute(file))) }
        let members = [("dir", .string(Self.absolute(directory)))] + paths + [("validUntil", .string(until))]
        printer.print(
            JSONValue.object(members),
            human: [
                "root certificate: \(Self.absolute(files[0]))",
                "signing key:      \(Self.absolute(files[3])) (signs until \(until))",
                "To use it, add the root certificate to your tenant's \"app_store\" \"root_certificates\" in the tenants",
                "file, reload the server (kill -HUP) and sign with --dir \(directory). Trust it only in a tenant whose",
                "environments are Sandbox or LocalTesting, never Production: whoever holds the signing key can make",
                "purchases such a tenant accepts.",
            ])
        return 0
    }

    /// `dev sign-transaction --product ID --bundle-id ID [...]`
    func signTransaction() throws -> Int32 {
        try arguments.check(positionals: [], options: [
            "--dir", "--product", "--bundle-id", "--type", "--expires", "--original-transaction-id", "--transaction-id",
            "--app-account-token", "--environment", "--purchase-date", "--ownership", "--revocation-date",
            "--signed-date", "--upgraded", "--offer",
        ])
        let now = LocalPayloads.nowMilliseconds()
        let product = try arguments.required("--product")
        let bundleID = try arguments.required("--bundle-id")
        let type = try arguments.choice("--type", DevNames.productTypes) ?? .autoRenewableSubscription
        let signedDate = try arguments.date("--signed-date", now: now) ?? now
        // A transaction is signed when or after it is bought.
        let purchaseDate = try arguments.date("--purchase-date", now: now) ?? signedDate
        var expiresDate = try arguments.date("--expires", now: now)
        switch type {
        case .autoRenewableSubscription: expiresDate = expiresDate ?? purchaseDate + 30 * Milliseconds.perDay
        case .nonRenewingSubscription: break
        case .consumable, .nonConsumable:
            guard expiresDate == nil else {
                throw UsageError(description: "\(arguments.command): --expires applies only to subscriptions")
            }
        }
        let originalTransactionID = try arguments.optional("--original-transaction-id") ?? Self.transactionID()
        let object = LocalPayloads.transaction(
            bundleID: bundleID, productID: product, originalTransactionID: originalTransactionID,
            transactionID: try arguments.optional("--transaction-id"),
            environment: try arguments.choice("--environment", DevNames.environments) ?? .sandbox, type: type,
            purchaseDate: purchaseDate, expiresDate: expiresDate,
            appAccountToken: try arguments.uuid("--app-account-token"),
            ownership: try arguments.choice("--ownership", DevNames.ownerships) ?? .purchased,
            revocationDate: try arguments.date("--revocation-date", now: now), isUpgraded: arguments.flag("--upgraded"),
            signedDate: signedDate, promotionalOfferID: try arguments.optional("--offer"))
        return try sign(object)
    }

    /// `dev sign-renewal-info --original-transaction-id ID --product ID [...]`
    func signRenewalInfo() throws -> Int32 {
        try arguments.check(positionals: [], options: [
            "--dir", "--original-transaction-id", "--product", "--auto-renew", "--auto-renew-product",
            "--grace-period-expires", "--billing-retry", "--environment", "--signed-date",
        ])
        let now = LocalPayloads.nowMilliseconds()
        let gracePeriodExpires = try arguments.date("--grace-period-expires", now: now)
        // A grace period is part of billing retry: Apple sets isInBillingRetryPeriod during it.
        let billingRetry = arguments.flag("--billing-retry") || gracePeriodExpires != nil
        let object = LocalPayloads.renewalInfo(
            originalTransactionID: try arguments.required("--original-transaction-id"),
            productID: try arguments.required("--product"),
            autoRenewProductID: try arguments.optional("--auto-renew-product"),
            autoRenew: try arguments.choice("--auto-renew", DevNames.switches) ?? true,
            environment: try arguments.choice("--environment", DevNames.environments) ?? .sandbox,
            gracePeriodExpiresDate: gracePeriodExpires, isInBillingRetryPeriod: billingRetry ? true : nil,
            signedDate: try arguments.date("--signed-date", now: now) ?? now)
        return try sign(object)
    }

    /// `dev sign-notification TYPE [SUBTYPE] [--bundle-id ID] [...]`: the bundle ID and environment default to those of
    /// `--transaction` (else `--renewal-info` for the environment, else Sandbox).
    func signNotification() throws -> Int32 {
        try arguments.check(positionals: ["TYPE"], optional: 1, options: Self.notificationOptions)
        printToken(try signed(try notificationObject()))
        return 0
    }

    /// `dev notify TYPE [SUBTYPE] --tenant ID [sign-notification's options]`: signs a notification and posts it to
    /// the server's webhook (`--addr`, cleartext HTTP/1.1), printing the server's answer; exit 0 only on a 2xx.
    func notify() async throws -> Int32 {
        try arguments.check(positionals: ["TYPE"], optional: 1, options: Self.notificationOptions.union(["--tenant"]))
        guard let tenant = try arguments.optional("--tenant") else {
            throw UsageError(description: "\(arguments.command) needs --tenant ID")
        }
        let token = try signed(try notificationObject())
        let body = Array(JSONValue.object([("signedPayload", .string(token))]).text.utf8)
        return try await postAndPrint(body, path: "/v1/apple/notifications/\(tenant)")
    }

    private static let notificationOptions: Set<String> = [
        "--dir", "--bundle-id", "--app-apple-id", "--transaction", "--renewal-info", "--environment", "--signed-date",
    ]

    private func notificationObject() throws -> LocalPayloads.Object {
        let type = try Self.notificationName(arguments.positionals[0], "TYPE", known: NotificationType.self)
        let subtype = try arguments.positionals.dropFirst().first.map { text throws(UsageError) in
            try Self.notificationName(text, "SUBTYPE", known: NotificationSubtype.self)
        }
        let transaction = try arguments.signedPayload("--transaction", as: JWSTransaction.self)
        let renewalInfo = try arguments.signedPayload("--renewal-info", as: JWSRenewalInfo.self)
        guard let bundleID = try arguments.optional("--bundle-id") ?? transaction?.payload.bundleId else {
            throw UsageError(description: "\(arguments.command) needs --bundle-id (or a --transaction that has one)")
        }
        let claimed = transaction?.payload.environment?.known ?? renewalInfo?.payload.environment?.known
        let now = LocalPayloads.nowMilliseconds()
        let object = LocalPayloads.notification(
            type: type, subtype: subtype, bundleID: bundleID,
            appAppleID: try arguments.integer("--app-apple-id", Int64.self, minimum: 1),
            environment: try arguments.choice("--environment", DevNames.environments) ?? claimed ?? .sandbox,
            signedTransactionInfo: transaction?.token, signedRenewalInfo: renewalInfo?.token,
            signedDate: try arguments.date("--signed-date", now: now) ?? now)
        return object
    }

    // MARK: - Helpers

    /// POSTs a JSON body to the server (`--addr`, cleartext HTTP/1.1, with the transport's HTTP client) and prints
    /// the status and the reply (`{"status": N, "reply": "..."}` with `--json`); exit 0 only on a 2xx. A connection
    /// that cannot be made throws ``ClientConnectionFailure``, as a gRPC call's would, for the same hint.
    func postAndPrint(_ body: [UInt8], path: String, headers extra: [(String, String)] = []) async throws -> Int32 {
        let response = try await ServerHTTP.send(
            "POST", path: path, headers: [("content-type", "application/json")] + extra, body: body, to: address,
            timeout: timeout)
        let status = response.status
        let reply = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        printer.print(
            JSONValue.object([("status", .number(String(status))), ("reply", .string(reply))]),
            human: "\(status) \(reply)")
        return (200..<300).contains(status) ? 0 : 1
    }

    /// Signs with the CA in `--dir` and prints the token (`{"token": ...}` with `--json`).
    private func sign(_ object: LocalPayloads.Object) throws -> Int32 {
        printToken(try signed(object))
        return 0
    }

    private func printToken(_ token: String) {
        printer.print(JSONValue.object([("token", .string(token))]), human: token)
    }

    /// A compact JWS of `object`, signed by the CA in `--dir`.
    private func signed(_ object: LocalPayloads.Object) throws -> String {
        let directory = try arguments.optional("--dir") ?? Self.defaultDirectory
        guard FileManager.default.fileExists(atPath: Self.path(directory, LocalSigningCA.FileName.root)) else {
            if arguments.value("--dir") == nil {
                throw Failure(
                    description: "no local signing CA in \(directory) (the demo tenant's, used without --dir): run entctl "
                        + "from the repository root, or pass --dir DIR with a CA made by `entctl dev init --dir DIR`")
            }
            throw Failure(
                description: "no local signing CA in \(directory): create one with "
                    + "`entctl dev init --dir \(directory)`")
        }
        let ca = try LocalSigningCA.load(from: directory)
        if let signedDate = object["signedDate"] as? Int64 {
            let seconds = signedDate / 1000
            if seconds < ca.leaf.notValidBefore || seconds > ca.leaf.notValidAfter {
                Self.warn(
                    "the signed date is outside the validity of \(Self.path(directory, LocalSigningCA.FileName.leaf)); "
                        + "verification will fail")
            }
        }
        do {
            return try ca.sign(object)
        } catch {
            throw Failure(description: "cannot sign: \(error.message)")
        }
    }

    /// A notification type or subtype in Apple's spelling (`did_renew` is taken as `DID_RENEW`). A name this build
    /// does not know is signed as given, after a warning: the server must record unknown types.
    private static func notificationName<Known: RawRepresentable>(_ text: String, _ what: String, known: Known.Type)
        throws(UsageError) -> String where Known.RawValue == String
    {
        let name = text.uppercased()
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_".utf8)
        guard !name.isEmpty, name.utf8.allSatisfy(allowed.contains) else {
            throw UsageError(description: "invalid \(what) '\(text)': expected a name such as DID_RENEW")
        }
        if Known(rawValue: name) == nil { warn("\(what) \(name) is not one Apple documents; signing it as given") }
        return name
    }

    /// An Apple-style numeric transaction ID.
    private static func transactionID() -> String { "2000000" + String(UInt64.random(in: 100_000_000...999_999_999)) }

    static func warn(_ text: String) {
        FileHandle.standardError.write(Data("entctl: warning: \(text)\n".utf8))
    }

    static func path(_ directory: String, _ name: String) -> String {
        (directory as NSString).appendingPathComponent(name)
    }

    static func absolute(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.path
    }
}

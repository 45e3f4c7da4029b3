import EntitlementsKit
import EntitlementsProto
import Foundation

/// The sample's command loop: one command per line on stdin, one JSON object per line on stdout for each status
/// update the SDK publishes and for each command's result or error. Tests and the benchmark drive the SDK through it.
actor SampleCommands {
    let entitlements: Entitlements
    /// The Observation model an app's views would read; `model` prints what it holds.
    let model: EntitlementsModel
    private let output = JSONLines()

    init(entitlements: Entitlements, model: EntitlementsModel) {
        self.entitlements = entitlements
        self.model = model
    }

    /// Prints every update until the process ends.
    func follow() async {
        let output = output
        let updates = await entitlements.updates()
        Task {
            for await update in updates { output.print(UpdateLine(update)) }
        }
    }

    /// Runs one command line; false for `quit`.
    func run(_ line: String) async -> Bool {
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first else { return true }
        let argument = words.count > 1 ? words[1] : ""
        do {
            switch command {
            case "quit": return false
            case "whoami":
                output.print(ResultLine(command, appUserID: await entitlements.appUserID,
                                        appAccountToken: await entitlements.appAccountToken?.uuidString.lowercased()))
            case "identify":
                let identified = try await entitlements.identify(argument)
                output.print(ResultLine(command, appUserID: argument, merged: identified.merged))
            case "logout":
                try await entitlements.logOut()
                output.print(ResultLine(command, appUserID: await entitlements.appUserID))
            case "model": output.print(ResultLine(command, snapshot: await model.snapshot))
            case "refresh": output.print(ResultLine(command, snapshot: try await entitlements.refresh()))
            case "at-least":
                output.print(ResultLine(command, snapshot: try await entitlements.status(atLeast: UInt64(argument) ?? 0)))
            case "purchase": output.print(ResultLine(command, outcome: try await entitlements.purchase(signedTransaction: argument)))
            case "redeem": output.print(ResultLine(command, outcome: try await entitlements.redeemWebPurchase(code: argument)))
            case "background":
                await entitlements.enteredBackground()
                output.print(ResultLine(command))
            case "foreground":
                await entitlements.enteredForeground()
                output.print(ResultLine(command, snapshot: await entitlements.current))
            default:
                throw EntitlementsError(code: .invalidArgument, message: "unknown command '\(command.prefix(32))'")
            }
        } catch let error as EntitlementsError {
            output.print(ErrorLine(command: command, code: "\(error.code)", message: error.message))
        } catch {
            output.print(ErrorLine(command: command, code: "unknown", message: "\(error)"))
        }
        return true
    }
}

/// Writes one JSON object per line, whole lines only.
final class JSONLines: Sendable {
    private let lock = NSLock()

    func print(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        guard let data = try? encoder.encode(value) else { return }
        lock.withLock { FileHandle.standardOutput.write(data + Data("\n".utf8)) }
    }
}

struct EntitlementLine: Encodable {
    var id: String
    var source: String
    var product: String
    var expiresAtMs: Int64?

    init(_ entitlement: Entitlement) {
        id = entitlement.id
        source = entitlement.source.rawValue
        product = entitlement.productID
        expiresAtMs = entitlement.expiresAt.map { Int64($0.timeIntervalSince1970 * 1000) }
    }
}

struct SnapshotLine: Encodable {
    var appUserID: String
    var state: String
    var version: UInt64
    var origin: String
    var entitlements: [EntitlementLine]

    init(_ snapshot: StatusSnapshot) {
        appUserID = snapshot.appUserID
        state =
            switch snapshot.status {
            case .unknown: "unknown"
            case .active: "active"
            case .inactive: "inactive"
            }
        version = snapshot.version
        origin = snapshot.origin.rawValue
        entitlements = snapshot.status.entitlements.sorted { $0.id < $1.id }.map(EntitlementLine.init)
    }
}

struct UpdateLine: Encodable {
    var event = "update"
    var change: String?
    var snapshot: SnapshotLine
    /// When the SDK published it (UNIX milliseconds), for the benchmark's latency.
    var publishedAtMs = Int64(Date().timeIntervalSince1970 * 1000)

    init(_ update: StatusUpdate) {
        change = update.change.map { $0 == .entitlements ? "entitlements" : "details" }
        snapshot = SnapshotLine(update.snapshot)
    }
}

struct ResultLine: Encodable {
    var event = "result"
    var command: String
    var appUserID: String?
    var appAccountToken: String?
    var merged: Bool?
    var snapshot: SnapshotLine?
    var outcomes: [String]?

    init(
        _ command: String, appUserID: String? = nil, appAccountToken: String? = nil, merged: Bool? = nil,
        snapshot: StatusSnapshot? = nil
    ) {
        self.command = command
        self.appUserID = appUserID
        self.appAccountToken = appAccountToken
        self.merged = merged
        self.snapshot = snapshot.map(SnapshotLine.init)
    }

    init(_ command: String, outcome: Entitlements.PurchaseOutcome) {
        self.init(command, snapshot: outcome.status)
        outcomes = outcome.results.map { result in
            switch result.outcome {
            case .new: "new"
            case .updated: "updated"
            case .unchanged: "unchanged"
            case .olderThanStored: "older_than_stored"
            default: "unspecified"
            }
        }
    }
}

struct ErrorLine: Encodable {
    var event = "error"
    var command: String
    var code: String
    var message: String
}

import Encodings

/// Everything stored about one customer as one JSON document (README, "Exporting a customer"), produced a part at a
/// time so that a long history never sits in memory whole: ``next()`` returns the document's next bytes, `nil` at its
/// end. The parts joined in order are the document.
///
/// The first part holds the customer, its IDs, status, attributes, purchases (with their store IDs, revenue ledger
/// rows and redemption codes), grants and the redemption codes it used; then the events of the customer and of the
/// customers merged into it, oldest first, a page per part; then the webhook deliveries about them, newest first, with
/// their bodies while they are kept. Events stop at each customer's version when the export began.
public struct CustomerExport: Sendable {
    public static let formatVersion = 1
    static let eventPage = 500
    static let deliveryPage = 100

    private enum Stage: Sendable {
        case head
        /// The events of `customers[index]` above `after`.
        case events(index: Int, after: UInt64)
        /// The deliveries about `customers[index]` below `before`.
        case deliveries(index: Int, before: Int64?)
        case done
    }

    private let repository: any CustomerRepository
    private let tenantID: String
    /// The customer first, then those merged into it, as the export began.
    private let customers: [CustomerRecord]
    private var head: JSONValue?
    private var stage = Stage.head
    /// Whether the array being written has an element yet (the next one needs a comma).
    private var started = false

    init(repository: any CustomerRepository, tenantID: String, customers: [CustomerRecord], head: JSONValue) {
        self.repository = repository
        self.tenantID = tenantID
        self.customers = customers
        self.head = head
    }

    /// The document's next bytes; nil once it is complete.
    public mutating func next() throws(DomainError) -> [UInt8]? {
        switch stage {
        case .head:
            // The head is an object; the arrays that follow are written into it, so its closing brace goes.
            var text = head!.text
            text.removeLast()
            head = nil
            stage = .events(index: 0, after: 0)
            return Array((text + #","events":["#).utf8)
        case .events(let index, let after):
            guard index < customers.count else {
                stage = .deliveries(index: 0, before: nil)
                started = false
                return Array(#"],"webhook_deliveries":["#.utf8)
            }
            let customer = customers[index]
            let page = try DomainError.reading { () throws(StorageError) in
                try repository.events(
                    tenantID: tenantID, customerID: customer.id, afterVersion: after, limit: Self.eventPage)
            }.filter { $0.version <= customer.version }
            let last = page.last?.version ?? customer.version
            stage = page.count < Self.eventPage || last >= customer.version
                ? .events(index: index + 1, after: 0) : .events(index: index, after: last)
            return elements(page.map { Self.event($0, appUserID: customer.appUserID) })
        case .deliveries(let index, let before):
            guard index < customers.count else {
                stage = .done
                return Array("]}".utf8)
            }
            let customer = customers[index]
            let page = try DomainError.reading { () throws(StorageError) in
                try repository.webhookDeliveries(
                    WebhookDeliveryFilter(tenantID: tenantID, customerID: customer.id, beforeID: before),
                    limit: Self.deliveryPage)
            }
            stage = page.count < Self.deliveryPage
                ? .deliveries(index: index + 1, before: nil) : .deliveries(index: index, before: page.last?.id)
            return elements(page.map(Self.delivery))
        case .done:
            return nil
        }
    }

    /// Array elements, comma-separated from those before.
    private mutating func elements(_ values: [JSONValue]) -> [UInt8] {
        var text = ""
        for value in values {
            if started { text += "," }
            started = true
            text += value.text
        }
        return Array(text.utf8)
    }

    static func event(_ record: EventRecord, appUserID: String) -> JSONValue {
        .object([
            ("app_user_id", .string(appUserID)),
            ("version", .number(String(record.version))),
            ("cause", .string(record.cause.webhookName)),
            ("kind", .string(record.change == .statusChanged ? "status_changed" : "customer_info_changed")),
            ("reason", .string(record.reason)),
            ("occurred_at", CustomerJSON.time(record.occurredAt)),
            ("related_app_user_id", .string(record.relatedAppUserID)),
            ("reference_id", .string(record.referenceID)),
            ("key_name", .string(record.keyName)),
            ("status", CustomerJSON.status(ComputedStatus(storedBytes: record.status))),
        ])
    }

    static func stateName(_ state: WebhookDelivery.State) -> String {
        switch state {
        case .pending: "pending"
        case .delivered: "delivered"
        case .failed: "failed"
        case .notice: "notice"
        }
    }

    /// The body as the JSON it is (a message this server wrote), or as a string should it not be.
    static func delivery(_ delivery: WebhookDelivery) -> JSONValue {
        let isJSON = (try? JSONReader.read(delivery.body) { (reader) throws(JSONReadError) in try reader.skipValue() }) != nil
        return .object([
            ("id", .number(String(delivery.id))),
            ("endpoint_id", .string(delivery.endpointID)),
            ("webhook_id", .string(delivery.messageID)),
            ("type", .string(delivery.type)),
            ("state", .string(stateName(delivery.state))),
            ("app_user_id", .string(delivery.appUserID)),
            ("version", .number(String(delivery.version))),
            ("created_at", CustomerJSON.time(delivery.createdAt)),
            ("attempts", .number(String(delivery.attempts))),
            ("last_status", delivery.lastStatus.map { .number(String($0)) } ?? .null),
            ("last_error", .string(delivery.lastError)),
            ("delivered_at", CustomerJSON.time(delivery.deliveredAt)),
            ("body", isJSON ? .raw(delivery.body) : .string(String(decoding: delivery.body, as: UTF8.self))),
        ])
    }
}

/// Which option of each command sets each request field, so that an error the server words in the API's field names
/// (`product_id is required ...`) also names what to type (`product_id (--product) is required ...`). Positional
/// arguments are left out: what the user typed there is the value the message quotes.
enum RequestFieldFlags {
    static let byCommand: [String: [String: String]] = [
        "identify": ["anonymous_id": "--anonymous-id"],
        "watch": ["after_version": "--after-version"],
        "purchase": [
            "transaction_id": "--transaction-id", "product_id": "--play PRODUCT_ID:TOKEN",
            "purchase_token": "--play PRODUCT_ID:TOKEN",
        ],
        "restore": [
            "product_id": "--play PRODUCT_ID:TOKEN", "purchase_token": "--play PRODUCT_ID:TOKEN",
            "app_store_transaction_ids": "--history",
        ],
        "grant": [
            "duration": "--duration", "expires_at": "--expires-at", "reason": "--reason",
            "idempotency_key": "--idempotency-key",
        ],
        "revoke": ["reason": "--reason"],
        "events": ["page_size": "--page-size", "page_token": "--page-token"],
        "customers": [
            "entitlement_id": "--entitlement", "store": "--store", "product_id": "--product", "state": "--state",
            "changed_since": "--changed-since", "page_size": "--page-size", "page_token": "--page-token",
        ],
        "refresh-purchase": ["product_id": "--product"],
        "webhooks list": [
            "endpoint_id": "--endpoint", "app_user_id": "--user", "state": "--state", "created_after": "--since",
            "created_before": "--until", "page_size": "--page-size", "page_token": "--page-token",
        ],
        "webhooks redeliver": ["endpoint_id": "--endpoint", "created_after": "--since", "created_before": "--until"],
        "appstore reconcile": [
            "start_time": "--since", "end_time": "--until", "transaction_ids": "--transaction-id",
            "only_failures": "--only-failures",
        ],
        "appstore lookup": ["reason": "--reason"],
        "appstore extend": [
            "extend_by_days": "--days", "reason_code": "--reason-code", "request_identifier": "--request-id",
            "reason": "--reason",
        ],
        "appstore consumption": [
            "customer_consented": "--consented", "delivery_status": "--delivery", "sample_content_provided": "--sample",
            "consumption_percentage": "--consumed", "refund_preference": "--refund-preference", "reason": "--reason",
        ],
        "appstore test-notification": ["environment": "--environment"],
        "appstore check": ["wait": "--wait"],
    ]

    /// `message` with the first mention of each field an option of `command` sets followed by the option in
    /// parentheses. A field is a whole word (`a_b`, or `x.a_b`, whose last part counts); a sentence's full stop
    /// after it is not part of it.
    static func annotate(_ message: String, command: String) -> String {
        guard let flags = byCommand[command] else { return message }
        var result = ""
        var annotated: Set<String> = []
        var word = ""
        func flush() {
            var name = Substring(word)
            var trailing = ""
            while name.last == "." {
                name.removeLast()
                trailing += "."
            }
            let field = flags[String(name)] != nil ? String(name) : name.split(separator: ".").last.map(String.init)
            result += name
            if let field, let flag = flags[field], annotated.insert(field).inserted { result += " (\(flag))" }
            result += trailing
            word = ""
        }
        for character in message {
            if character.isASCII, character.isLowercase || character.isNumber || character == "_" || character == "." {
                word.append(character)
            } else {
                flush()
                result.append(character)
            }
        }
        flush()
        return result
    }
}

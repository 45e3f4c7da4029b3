/// Text in the Prometheus exposition format 0.0.4: each family's `# HELP` and `# TYPE` lines, then its samples,
/// every line ending in `\n`.
///
/// Callers write one family at a time (all of a family's samples right after its header), as the format requires.
public struct PrometheusText: Sendable {
    public enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    /// The `Content-Type` a scraper expects for this text.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    public private(set) var bytes: [UInt8] = []

    public init() {
        bytes.reserveCapacity(64 * 1024)
    }

    /// Starts a family; `help` is escaped here.
    public mutating func family(_ name: String, _ kind: Kind, help: String) {
        append("# HELP \(name) ")
        for byte in help.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\n"): append("\\n")
            default: bytes.append(byte)
            }
        }
        append("\n# TYPE \(name) \(kind.rawValue)\n")
    }

    /// One sample without labels.
    public mutating func sample(_ name: String, _ value: Double) {
        sample(name, labels: [], value)
    }

    /// One sample; label values are escaped here.
    public mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Double) {
        sample(name, labels: labels.map { (key: $0.key, value: $0.value) }, value)
    }

    public mutating func sample(_ name: String, labels: [(key: String, value: String)], _ value: Double) {
        append(name)
        if !labels.isEmpty {
            bytes.append(UInt8(ascii: "{"))
            for (index, label) in labels.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                append(label.key)
                append("=\"")
                for byte in label.value.utf8 {
                    switch byte {
                    case UInt8(ascii: "\\"): append("\\\\")
                    case UInt8(ascii: "\""): append("\\\"")
                    case UInt8(ascii: "\n"): append("\\n")
                    default: bytes.append(byte)
                    }
                }
                bytes.append(UInt8(ascii: "\""))
            }
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(UInt8(ascii: " "))
        append(Self.format(value))
        bytes.append(UInt8(ascii: "\n"))
    }

    /// A histogram's `_bucket` lines (cumulative, ending with `+Inf`), `_sum` and `_count` for one label set.
    public mutating func histogram(
        _ name: String, labels: [(key: String, value: String)], buckets: HistogramBuckets, counts: [UInt64], sum: Double
    ) {
        var cumulative: UInt64 = 0
        for (index, bound) in buckets.upperBounds.enumerated() {
            cumulative += counts[index]
            sample(name + "_bucket", labels: labels + [("le", Self.format(bound))], Double(cumulative))
        }
        cumulative += counts[buckets.upperBounds.count]
        sample(name + "_bucket", labels: labels + [("le", "+Inf")], Double(cumulative))
        sample(name + "_sum", labels: labels, sum)
        sample(name + "_count", labels: labels, Double(cumulative))
    }

    /// A value the way Go's exporters print it: integers without a fraction, `+Inf`, `-Inf`, `NaN`.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}

/// Something that adds its families to a scrape.
public protocol MetricsSource: Sendable {
    func collect(into text: inout PrometheusText)
}

/// A number with its noun in agreement: `1 delivery`, `2 deliveries`, `0 attempts`.
public func counted(_ count: some BinaryInteger, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) " + (count == 1 ? singular : plural ?? singular + "s")
}

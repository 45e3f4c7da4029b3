/// The name of the API key whose call the current task serves (its name in the tenants file, never the key), bound
/// while the call runs so that every event it commits records who acted. nil for work no call started: store
/// notifications, webhooks from Stripe, expiries.
public enum ActingKey {
    @TaskLocal public static var name: String?
}

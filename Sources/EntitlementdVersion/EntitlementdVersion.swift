/// The release both binaries report with `--version`. Its own module, so `entctl` and `entitlementd` share one
/// definition without `entctl` linking the server.
public enum EntitlementdVersion {
    public static let string = "0.1.0"
}

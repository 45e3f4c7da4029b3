import EntitlementDomain
import EntitlementStorage
import TenantConfiguration

/// `entitlementd purge-tenant --config FILE --tenant ID [--dry-run]`: a tenant removed from the tenants file keeps
/// its data until this deletes it all (README, "Removing a tenant").
enum TenantPurgeCommand {
    static func run(configPath: String, tenantID: String, dryRun: Bool) -> EntitlementdCommand.Outcome {
        func failure(_ message: String) -> EntitlementdCommand.Outcome {
            .exit(status: EntitlementdCommand.configErrorStatus, standardOutput: "", standardError: "entitlementd: \(message)\n")
        }
        do throws(TenantRuleError) {
            try Tenant.checkID(tenantID)
        } catch {
            return .exit(
                status: EntitlementdCommand.usageErrorStatus, standardOutput: "",
                standardError: "entitlementd: purge-tenant --tenant: \(error.message)\n")
        }
        let config: ServerConfig
        do {
            config = try ServerConfig.load(path: configPath)
        } catch {
            return .exit(
                status: EntitlementdCommand.configErrorStatus, standardOutput: "",
                standardError: EntitlementdCommand.lines(error.errors))
        }
        if let path = config.tenantsPath {
            do {
                if try TenantConfigLoader.load(path: path).tenant(id: tenantID) != nil {
                    return failure(
                        "tenant \(tenantID) is in the tenants file \(path): remove it there first, then purge it")
                }
            } catch {
                return failure("\(error)")
            }
        }
        let purged: [SQLRepository.PurgedTable]
        do {
            let repository: SQLRepository =
                if let postgres = config.postgres {
                    try PostgresRepository(conninfo: postgres.conninfo)
                } else {
                    try SQLiteRepository(path: config.databasePath)
                }
            purged = try repository.purgeTenant(tenantID, dryRun: dryRun)
        } catch {
            return failure("purge-tenant \(tenantID) failed: \(error)")
        }
        let verb = dryRun ? "would delete" : "deleted"
        var lines = purged.filter { $0.rows > 0 }.map { "\($0.table): \(verb) \($0.rows) rows" }
        let total = purged.reduce(0) { $0 + $1.rows }
        lines.append("tenant \(tenantID): \(verb) \(total) rows in all" + (dryRun ? " (dry run: nothing changed)" : ""))
        return .exit(status: 0, standardOutput: lines.joined(separator: "\n") + "\n", standardError: "")
    }
}

public import EntitlementDomain

/// Database-level chores on a PostgreSQL server, for tools and tests: not used while serving.
public enum PostgresAdministration {
    /// Creates schema `name` (lowercase letters, digits and `_` only) in the database `conninfo` connects to; a
    /// connection string with `options=-csearch_path=NAME` then keeps every table of a repository in it. False when
    /// it exists already.
    @discardableResult
    public static func createSchema(_ name: String, conninfo: String) throws(StorageError) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 63,
            name.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) })
        else {
            throw .conflict("\(name) is not a name this tool creates (lowercase letters, digits, _)")
        }
        do throws(PostgresError) {
            try PostgresConnection(conninfo: conninfo).execute("CREATE SCHEMA \(name)")
            return true
        } catch where error.sqlState == "42P06" {  // duplicate_schema
            return false
        } catch {
            throw error.storageError
        }
    }
}

public import EntitlementDomain

/// Database-level chores on a PostgreSQL server, for tools and tests: not used while serving.
public enum PostgresAdministration {
    /// Creates database `name` (letters, digits and `_` only) through a connection made with `conninfo`; false
    /// when it exists already.
    @discardableResult
    public static func createDatabase(_ name: String, conninfo: String) throws(StorageError) -> Bool {
        try checkName(name)
        do throws(PostgresError) {
            try PostgresConnection(conninfo: conninfo).execute("CREATE DATABASE \(name)")
            return true
        } catch where error.sqlState == "42P04" {  // duplicate_database
            return false
        } catch {
            throw error.storageError
        }
    }

    /// Creates schema `name` (same rules as database names) in the database `conninfo` connects to; a connection
    /// string with `options=-csearch_path=NAME` then keeps every table of the repository in it.
    public static func createSchema(_ name: String, conninfo: String) throws(StorageError) {
        try checkName(name)
        do throws(PostgresError) {
            try PostgresConnection(conninfo: conninfo).execute("CREATE SCHEMA IF NOT EXISTS \(name)")
        } catch {
            throw error.storageError
        }
    }

    /// Drops database `name`, ending its sessions first.
    public static func dropDatabase(_ name: String, conninfo: String) throws(StorageError) {
        try checkName(name)
        do throws(PostgresError) {
            try PostgresConnection(conninfo: conninfo).execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
        } catch {
            throw error.storageError
        }
    }

    private static func checkName(_ name: String) throws(StorageError) {
        guard !name.isEmpty, name.utf8.count <= 63,
            name.utf8.allSatisfy({ $0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) })
        else {
            throw .conflict("\(name) is not a database name this tool creates (lowercase letters, digits, _)")
        }
    }
}

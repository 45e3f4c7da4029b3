extension DomainError {
    /// Storage failures as the caller sees them: a retry may help for `unavailable`, nothing else is the caller's fault.
    init(_ error: StorageError) {
        switch error.code {
        case .unavailable: self = .storageUnavailable("The database is unavailable: \(error.message)")
        // The write queue runs a contended write again alone; one that still finds the lock held fails unavailable.
        case .contended: self = .storageUnavailable("The customer is locked by another writer: \(error.message)")
        case .conflict: self = .storageFailed("A storage conflict occurred: \(error.message)")
        case .corrupt: self = .storageFailed("The database is damaged: \(error.message)")
        }
    }

    /// `body`'s answer, or its storage failure as the caller sees it.
    static func reading<Value>(_ body: () throws(StorageError) -> Value) throws(DomainError) -> Value {
        do {
            return try body()
        } catch {
            throw DomainError(error)
        }
    }
}

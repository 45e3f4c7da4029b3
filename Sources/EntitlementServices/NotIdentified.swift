import BoundedText
import EntitlementDomain

extension DomainError {
    /// `NOT_FOUND` for a status read (SyncStatus, StreamStatus) of an app user ID no customer has. The app identifies
    /// its user first; an SDK that gets this identifies again (after a database reset, say) instead of showing a
    /// status the server does not hold.
    static func notIdentified(_ appUserID: String) -> DomainError {
        .notFound("No customer has app_user_id \(appUserID.quotedForMessage) yet; call Identify first.")
    }
}

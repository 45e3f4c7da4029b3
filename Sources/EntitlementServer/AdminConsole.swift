public import FileAccess

/// The admin console (`[admin_console] directory`, served at `/admin/`): static pages that call AdminService over
/// the Connect protocol with a key the person signs in with. Their policy lets them run only their own scripts and styles and
/// reach only this server, never be framed, and never leak the page's address.
public enum AdminConsole {
    static let headers = [
        (
            "content-security-policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
                + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        ),
        ("referrer-policy", "no-referrer"), ("x-frame-options", "DENY"), ("cross-origin-opener-policy", "same-origin"),
    ]

    public static func files(directory: String) throws(FileSystemError) -> StaticFiles {
        try StaticFiles(directory: directory, headers: headers)
    }
}

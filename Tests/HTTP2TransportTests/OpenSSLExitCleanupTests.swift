import COpenSSLShims
import Testing

/// entitlementd exits while other threads still free OpenSSL objects (the outbound client's loop frees its SSL_CTX, a
/// dispatch or loop thread may release the server), so OpenSSL must not free its global state in its atexit handler,
/// which OpenSSL forbids while another thread uses the library (the suspected cause of interop-server's one abort at
/// exit with `malloc_consolidate(): unaligned fastbin chunk detected`). The shim initialises OpenSSL before main with
/// OPENSSL_INIT_NO_ATEXIT; this fails if that constructor is lost or its initialisation fails.
@Suite("OpenSSL exit cleanup")
struct OpenSSLExitCleanupTests {
    @Test("OpenSSL was initialised before main without its atexit cleanup")
    func noCleanupAtExit() {
        #expect(cshim_openssl_exit_cleanup_disabled() == 1)
    }
}

import FileAccess
import Glibc

/// The process's file-descriptor limit, raised at start: every connected device holds a descriptor, and the soft
/// limit a process is usually started with (1,024) would turn devices away long before memory runs short.
///
/// The soft limit goes up to the hard limit, or to the kernel's ceiling (`fs.nr_open`) where the hard limit is
/// unlimited; the hard limit itself needs privileges to raise and is left to the service manager (`LimitNOFILE=`).
enum DescriptorLimit {
    struct Raise {
        let before: UInt64
        let after: UInt64
        let hard: UInt64
    }

    /// The soft limit before and after, and the hard limit; nil when the limits cannot be read.
    static func raise() -> Raise? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        let before = limit.rlim_cur
        // The kernel refuses any hard limit above its ceiling, even an unlimited one kept as it was: ask for the lower.
        let ceiling = min(limit.rlim_max, kernelCeiling() ?? limit.rlim_max)
        if ceiling > limit.rlim_cur {
            var raised = rlimit(rlim_cur: ceiling, rlim_max: ceiling)
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised)  // if refused, the log line shows the limit kept
        }
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return Raise(before: UInt64(before), after: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max))
    }

    /// `fs.nr_open`: no process may hold more descriptors, whatever its hard limit says.
    private static func kernelCeiling() -> rlim_t? {
        guard case .success(let bytes) = FileSystem.readFile("/proc/sys/fs/nr_open") else { return nil }
        return rlim_t(String(decoding: bytes, as: UTF8.self).filter(\.isNumber))
    }
}

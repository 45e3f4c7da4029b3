import Glibc

/// The process collector's series every Prometheus client exports (`process_*`), read from `/proc/self`.
public struct ProcessMetrics: MetricsSource {
    private let startTime: Double

    public init() {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        startTime = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    public func collect(into text: inout PrometheusText) {
        let pageSize = Double(sysconf(Int32(_SC_PAGESIZE)))
        // statm: size resident shared text lib data dt, in pages.
        let statm = Self.read("/proc/self/statm").split(separator: " ").compactMap { Double($0) }
        if statm.count >= 2 {
            text.family("process_resident_memory_bytes", .gauge, help: "Resident memory size in bytes.")
            text.sample("process_resident_memory_bytes", statm[1] * pageSize)
            text.family("process_virtual_memory_bytes", .gauge, help: "Virtual memory size in bytes.")
            text.sample("process_virtual_memory_bytes", statm[0] * pageSize)
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        text.family("process_cpu_seconds_total", .counter, help: "Total user and system CPU time spent in seconds.")
        text.sample("process_cpu_seconds_total", cpu)
        text.family("process_open_fds", .gauge, help: "Number of open file descriptors.")
        text.sample("process_open_fds", Double(Self.openDescriptors()))
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        text.family("process_max_fds", .gauge, help: "Maximum number of open file descriptors.")
        text.sample("process_max_fds", Double(limit.rlim_cur))
        text.family("process_start_time_seconds", .gauge, help: "Start time of the process since unix epoch in seconds.")
        text.sample("process_start_time_seconds", startTime)
    }

    private static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            if entry.pointee.d_name.0 != CChar(UInt8(ascii: ".")) { count += 1 }
        }
        return count - 1  // the directory's own descriptor
    }

    private static func read(_ path: String) -> Substring {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 256)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "" }
        let line = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return Substring(line.split(separator: "\n").first ?? "")
    }
}

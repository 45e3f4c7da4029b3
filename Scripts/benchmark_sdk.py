"""Scripts/benchmark-sdk: EntitlementsKit's costs, through its sample program against a release entitlementd with the
demo tenants (see the shell wrapper for what is measured)."""
import argparse, json, os, statistics, subprocess, sys, tempfile, threading, time, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Interop"))
from bench_support import ROOT, build_release, free_port, machine, rss_mb, wait_for_port  # noqa: E402
from proto_wire import field, fields, varint  # noqa: E402
from sdk_sample import SampleDevice, active  # noqa: E402

import grpc  # noqa: E402

PUBLIC_KEY = "pk_demo_public_key_for_local_testing_only"
SECRET_KEY = "sk_demo_secret_key_for_local_testing_only"
SAMPLE = os.path.join(ROOT, ".build/release/entitlements-kit-sample")
TICKS = os.sysconf("SC_CLK_TCK")


def read_string(message: bytes, wanted: int) -> str:
    """The first length-delimited field `wanted` of a message (the Grant's ID)."""
    return next((value.decode() for number, value in fields(message) if number == wanted), "")


def cpu_seconds(pid: int) -> float:
    stat = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(stat[11]) + int(stat[12])) / TICKS


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def idle(port, transport, seconds):
    """CPU and memory of one SDK holding its stream for `seconds` with nothing changing."""
    device = SampleDevice(port, PUBLIC_KEY, transport, binary=SAMPLE)
    try:
        user = "bench-idle-" + uuid.uuid4().hex[:8]
        device.command(f"identify {user}")
        device.wait_for(lambda s: s["app_user_id"] == user and s["origin"] == "server")
        time.sleep(1)
        pid = device.process.pid
        cpu_before, rss_before = cpu_seconds(pid), rss_mb(pid)
        time.sleep(seconds)
        return cpu_seconds(pid) - cpu_before, rss_before, rss_mb(pid), len(device.all_updates())
    finally:
        device.close()


def latency(port, transport, changes):
    """Milliseconds from each admin call to the SDK's published change, beside a raw grpcio stream's."""
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    auth = [("authorization", f"Bearer {SECRET_KEY}")]
    raw = lambda path: channel.unary_unary(path, request_serializer=lambda b: b, response_deserializer=lambda b: b)
    grant, revoke = raw("/entitlements.v1.AdminService/GrantEntitlement"), raw("/entitlements.v1.AdminService/RevokeGrant")
    device = SampleDevice(port, PUBLIC_KEY, transport, binary=SAMPLE)
    try:
        user = "bench-push-" + uuid.uuid4().hex[:8]
        device.command(f"identify {user}")
        start = device.wait_for(lambda s: s["app_user_id"] == user and s["origin"] == "server")["snapshot"]["version"]
        arrivals = []
        stream = channel.unary_stream("/entitlements.v1.EntitlementService/StreamStatus", request_serializer=lambda b: b,
                                      response_deserializer=lambda b: b)(
            field(1, user.encode()) + varint(2 << 3) + varint(start),
            metadata=[("authorization", f"Bearer {PUBLIC_KEY}")])
        def read():
            try:
                for _ in stream:
                    arrivals.append(time.time())
            except grpc.RpcError:
                pass  # cancelled at the end

        threading.Thread(target=read, daemon=True).start()
        time.sleep(0.5)
        sdk, reference, grant_id = [], [], None
        for n in range(changes):
            version = start + n + 1
            sent = time.time()
            if grant_id is None:
                grant_id = read_string(grant(field(1, user.encode()) + field(2, b"pro"), metadata=auth), 1)
            else:
                revoke(field(1, grant_id.encode()), metadata=auth)
                grant_id = None
            update = device.wait_for(lambda s: s["version"] == version)
            sdk.append(update["published_at_ms"] - sent * 1000)
            deadline = time.monotonic() + 5
            while len(arrivals) < n + 1 and time.monotonic() < deadline:
                time.sleep(0.0005)
            reference.append((arrivals[n] - sent) * 1000)
        stream.cancel()
        return sdk, reference
    finally:
        device.close()
        channel.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--heartbeats", type=int, default=144,
                        help="gRPC-Web heartbeats to sit through (144 = an hour at the default 25 s)")
    parser.add_argument("--changes", type=int, default=200, help="grants and revocations timed")
    args = parser.parse_args()

    build_release("entitlementd", "entctl", "entitlements-kit-sample")
    work = tempfile.mkdtemp(prefix="entitlementd-bench-sdk-")
    port = free_port()
    with open(f"{work}/server.toml", "w") as f:
        # Heartbeats every second instead of every 25: an hour of them in 144 s.
        f.write(f'[server]\nlisten = "127.0.0.1:{port}"\nlog_level = "warning"\n'
                f'[storage]\ndatabase = "{work}/bench.sqlite"\ntenants = "{ROOT}/Config/tenants.demo.json"\n'
                f'[grpc_web]\nheartbeat_seconds = 1\n')
    server = subprocess.Popen([os.path.join(ROOT, ".build/release/entitlementd"), "--config", f"{work}/server.toml"],
                              stdout=subprocess.DEVNULL, stderr=open(f"{work}/server.log", "wb"))
    try:
        wait_for_port(port)
        print(f"machine: {machine()}")
        for transport in ("grpc-web", "grpc"):
            cpu, rss_before, rss_after, updates = idle(port, transport, args.heartbeats)
            hour = 3600 / (25 * args.heartbeats) if transport == "grpc-web" else 3600 / args.heartbeats
            print(f"idle SDK, {transport}: {args.heartbeats} s holding the stream "
                  f"({'one heartbeat a second, the heartbeats of ' + f'{args.heartbeats * 25 / 3600:.1f} h' if transport == 'grpc-web' else 'no traffic'}): "
                  f"CPU {cpu * 1000:.0f} ms (= {cpu * hour * 1000:.0f} ms per hour), RSS {rss_before:.1f} -> {rss_after:.1f} MB, "
                  f"{updates} updates published")
        for transport in ("grpc-web", "grpc"):
            sdk, reference = latency(port, transport, args.changes)
            print(f"grant/revoke -> published, {transport}: p50 {statistics.median(sdk):.2f} ms, "
                  f"p99 {percentile(sdk, 0.99):.2f} ms; a raw grpcio stream on the same user: "
                  f"p50 {statistics.median(reference):.2f} ms, p99 {percentile(reference, 0.99):.2f} ms; "
                  f"SDK p50 / raw p50 = {statistics.median(sdk) / statistics.median(reference):.2f}")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()

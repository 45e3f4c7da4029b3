"""Graceful shutdown on SIGTERM: calls in flight finish, new calls are refused, the process exits 0."""

from __future__ import annotations

import json
import signal
import time

import grpc
import pytest

from conftest import (
    DEMO_PUBLIC_KEY, DEMO_TENANTS_FILE, RPC_TIMEOUT, SHUTDOWN_TIMEOUT, CancellationProbe, call_server_streaming,
    call_unary, new_token,
)


def test_sigterm_lets_in_flight_call_finish(fresh_server, stubs):
    pb, grpc_module = stubs.interop_pb2, stubs.interop_pb2_grpc
    token = new_token()
    with fresh_server.channel() as channel:
        stub = grpc_module.InteropTestServiceStub(channel)
        probe = CancellationProbe(stub, pb)
        started = time.monotonic()
        in_flight = stub.Sleep.future(pb.SleepRequest(milliseconds=1500, cancellation_token=token), timeout=RPC_TIMEOUT)
        probe.wait_started(token)

        fresh_server.process.send_signal(signal.SIGTERM)
        time.sleep(0.2)

        # A new connection is refused (listener closed) or told to go away; either way the call fails.
        with fresh_server.channel() as late_channel:
            late_stub = grpc_module.InteropTestServiceStub(late_channel)
            with pytest.raises(grpc.RpcError) as raised:
                late_stub.EmptyCall(pb.Empty(), timeout=2.0)
            assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
        # So is a new call on the draining connection.
        with pytest.raises(grpc.RpcError) as raised:
            stub.EmptyCall(pb.Empty(), timeout=2.0)
        assert raised.value.code() == grpc.StatusCode.UNAVAILABLE

        assert in_flight.result(timeout=RPC_TIMEOUT) == pb.Empty()
        assert time.monotonic() - started >= 1.5
        assert fresh_server.process.poll() is None or fresh_server.process.returncode == 0

    try:
        code = fresh_server.process.wait(timeout=SHUTDOWN_TIMEOUT)
    except Exception:
        pytest.fail(f"server still running {SHUTDOWN_TIMEOUT}s after SIGTERM:\n{fresh_server.describe()}")
    assert code == 0, f"exit code {code}:\n{fresh_server.describe()}"


def test_sigterm_when_idle_exits_zero(fresh_server, stubs):
    pb, grpc_module = stubs.interop_pb2, stubs.interop_pb2_grpc
    with fresh_server.channel() as channel:
        stub = grpc_module.InteropTestServiceStub(channel)
        assert stub.EmptyCall(pb.Empty(), timeout=RPC_TIMEOUT) == pb.Empty()
    assert fresh_server.terminate() == 0, fresh_server.describe()


# --------------------------------------------------------------------------------------------------
# The whole sequence as clients and load balancers see it: drain delay, GOAWAY, subscriptions ended, exit 0

HEALTH = "grpc.health.v1.Health"
SERVING, NOT_SERVING = 1, 2
DRAIN_SECONDS = 3.0


class Streamed:
    """Reads a server stream on a thread; `items` gets (seconds since `start`, message or RpcError)."""

    def __init__(self, call, start: float):
        import queue
        import threading

        self.call, self.start, self.items = call, start, queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for message in self.call:
                self.items.put((time.monotonic() - self.start, message))
        except grpc.RpcError as error:
            self.items.put((time.monotonic() - self.start, error))

    def next(self, timeout: float = RPC_TIMEOUT):
        return self.items.get(timeout=timeout)


def _readyz(server) -> int:
    import http.client

    connection = http.client.HTTPConnection(server.host, server.port, timeout=5)
    try:
        connection.request("GET", "/readyz")
        return connection.getresponse().status
    finally:
        connection.close()


@pytest.fixture
def draining_server(configured_server):
    return configured_server({
        "server": {"shutdown_drain_delay_seconds": int(DRAIN_SECONDS), "shutdown_grace_period_seconds": 10,
                   "log_format": "json"},
        "storage": {"tenants": str(DEMO_TENANTS_FILE)},
    })


def test_shutdown_from_the_clients_side(draining_server, stubs, protos):
    server = draining_server
    pb, grpc_module = stubs.interop_pb2, stubs.interop_pb2_grpc
    health_request = protos.message("grpc.health.v1.HealthCheckRequest")(service="")
    health_response = protos.message("grpc.health.v1.HealthCheckResponse")
    auth = [("authorization", f"Bearer {DEMO_PUBLIC_KEY}")]
    user = f"shutdown-{new_token()}"
    with server.channel() as channel:
        identify = protos.message("entitlements.v1.IdentifyRequest")(app_user_id=user)
        call_unary(channel, "/entitlements.v1.EntitlementService/Identify", identify,
                   protos.message("entitlements.v1.IdentifyResponse"), metadata=auth)
        start = time.monotonic()
        watch = Streamed(call_server_streaming(channel, f"/{HEALTH}/Watch", health_request, health_response,
                                               timeout=60), start)
        assert watch.next()[1].status == SERVING
        status = Streamed(call_server_streaming(
            channel, "/entitlements.v1.EntitlementService/StreamStatus",
            protos.message("entitlements.v1.StreamStatusRequest")(app_user_id=user),
            protos.message("entitlements.v1.StatusEvent"), metadata=auth, timeout=60), start)
        status.next()  # the snapshot
        stub = grpc_module.InteropTestServiceStub(channel)
        in_flight = stub.Sleep.future(pb.SleepRequest(milliseconds=int(DRAIN_SECONDS * 1000) + 1500), timeout=30)
        time.sleep(0.2)

        signalled = time.monotonic()
        server.process.send_signal(signal.SIGTERM)

        # The open Watch hears NOT_SERVING at once.
        at, message = watch.next()
        assert message.status == NOT_SERVING and at - (signalled - start) < 1.5
        # During the drain delay a new connection is accepted: Check says NOT_SERVING, /readyz 503, calls still work.
        time.sleep(0.3)
        with server.channel() as late:
            grpc.channel_ready_future(late).result(timeout=5)
            checked = call_unary(late, f"/{HEALTH}/Check", health_request, health_response, timeout=5)
            assert checked.status == NOT_SERVING
            assert grpc_module.InteropTestServiceStub(late).EmptyCall(pb.Empty(), timeout=5) == pb.Empty()
        assert _readyz(server) == 503
        assert time.monotonic() - signalled < DRAIN_SECONDS, "the checks above must run inside the drain delay"

        # After the delay: the subscriptions end with UNAVAILABLE, well inside the grace period.
        for stream in (status, watch):
            at, ended = stream.next()
            assert isinstance(ended, grpc.RpcError), ended
            assert ended.code() == grpc.StatusCode.UNAVAILABLE
            assert "shutting down" in ended.details()
            elapsed = at - (signalled - start)
            assert DRAIN_SECONDS - 0.2 <= elapsed < DRAIN_SECONDS + 3.0, elapsed
        # The unary call in flight finishes normally.
        assert in_flight.result(timeout=RPC_TIMEOUT) == pb.Empty()

    code = server.process.wait(timeout=SHUTDOWN_TIMEOUT)
    assert code == 0, server.describe()
    assert time.monotonic() - signalled < DRAIN_SECONDS + 5
    # The log says what the client got (UNAVAILABLE), not how the handler saw its end (cancelled).
    lines = [json.loads(line) for line in server.log().splitlines() if line.startswith("{")]
    streams = [line for line in lines if line.get("msg") == "rpc" and line.get("method", "").endswith("/StreamStatus")]
    assert [(line["code"], "shutting down" in line.get("error", "")) for line in streams] == [("UNAVAILABLE", True)], \
        streams


def test_a_second_signal_exits_at_once(draining_server):
    server = draining_server
    server.process.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    assert _readyz(server) == 503
    signalled = time.monotonic()
    server.process.send_signal(signal.SIGINT)
    code = server.process.wait(timeout=SHUTDOWN_TIMEOUT)
    assert code == 1
    # At once: well before the drain delay (3 s) and grace period (10 s) would have ended.
    assert time.monotonic() - signalled < 2.5
    assert "second signal" in server.log()

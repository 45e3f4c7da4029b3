"""Graceful shutdown on SIGTERM: calls in flight finish, new calls are refused, the process exits 0."""

from __future__ import annotations

import signal
import time

import grpc
import pytest

from conftest import RPC_TIMEOUT, SHUTDOWN_TIMEOUT, CancellationProbe, new_token


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

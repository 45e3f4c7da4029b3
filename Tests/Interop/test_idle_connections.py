"""A device's connection spends its life idle, holding one stream, and must then carry a large message as well as it
did its first: while idle it holds none of OpenSSL's record buffers (SSL_MODE_RELEASE_BUFFERS gives them back after
every read and write) and none of nghttp2's frame buffer, whose pages go back to the kernel once the connection has
sent nothing for `[limits] idle_buffer_release_seconds` (Sources/CSystemShims/paged_blocks.c; the slot is returned
too when the connection ends, and handed to the next one). Over h2c and TLS, with grpcio as the client."""

from __future__ import annotations

import time

import grpc

from conftest import RPC_TIMEOUT, ServerProcess, call_bidirectional, call_server_streaming

HEALTH = "grpc.health.v1.Health"
REFLECTION = "grpc.reflection.v1"
SERVICES = ["entitlements.v1.AdminService", "entitlements.v1.EntitlementService"]


def _watch(channel, protos):
    """The device's idle stream: Health/Watch answers once and then waits, as StreamStatus does."""
    call = call_server_streaming(
        channel, f"/{HEALTH}/Watch", protos.message("grpc.health.v1.HealthCheckRequest")(service=""),
        protos.message("grpc.health.v1.HealthCheckResponse"),
    )
    assert next(call).status == protos.message("grpc.health.v1.HealthCheckResponse").SERVING
    return call


def _descriptors(channel, protos) -> bytes:
    """The services' files and their dependencies as served by reflection: messages of up to 16 KiB each (a DATA
    frame that fills most of the frame buffer), tens of KB in all, the same bytes every time."""
    request = protos.message(f"{REFLECTION}.ServerReflectionRequest")
    response_class = protos.message(f"{REFLECTION}.ServerReflectionResponse")
    call = call_bidirectional(
        channel, f"/{REFLECTION}.ServerReflection/ServerReflectionInfo", iter([request(file_containing_symbol=s) for s in SERVICES]),
        response_class, timeout=RPC_TIMEOUT,
    )
    return b"".join(raw for response in call for raw in response.file_descriptor_response.file_descriptor_proto)


def _large_unary(stub, pb, seed: int) -> None:
    """A 600 KiB request read and a 700 KiB answer written, through flow-control windows and many frames."""
    payload = bytes((seed + i * 7) % 251 for i in range(600 * 1024))
    response = stub.UnaryCall(pb.SimpleRequest(response_size=700 * 1024, payload=payload), timeout=RPC_TIMEOUT)
    assert len(response.payload) == 700 * 1024


def test_an_idle_connection_still_carries_large_messages_both_ways(channel, stub, pb, protos):
    watch = _watch(channel, protos)
    first = _descriptors(channel, protos)
    assert len(first) > 16 * 1024, f"{len(first)} bytes: less than one frame buffer"
    for round in range(3):
        # Idle: every buffer that is given back while nothing moves has been by now.
        time.sleep(0.5)
        _large_unary(stub, pb, round)
        assert _descriptors(channel, protos) == first
    # The idle stream is still open through all of it.
    watch.cancel()
    assert watch.code() == grpc.StatusCode.CANCELLED


def test_frame_buffers_given_back_by_closed_connections_serve_new_ones(server, stubs, pb, protos):
    """Each connection after the first is likely to get a frame buffer a closed one wrote all of (its pages zeroed by
    the kernel in between): it must start as cleanly as a new one."""
    expected = None
    for round in range(4):
        with server.channel() as channel:
            grpc.channel_ready_future(channel).result(timeout=RPC_TIMEOUT)
            watch = _watch(channel, protos)
            _large_unary(stubs.interop_pb2_grpc.InteropTestServiceStub(channel), pb, round)
            descriptors = _descriptors(channel, protos)
            expected = expected or descriptors
            assert descriptors == expected
            watch.cancel()


def test_a_connection_whose_frame_buffer_went_back_to_the_kernel_sends_and_receives_as_before(
    configured_server, stubs, pb, protos
):
    """With the release after 1 s, each idle spell below gives the frame buffer's pages back (they read as zeros
    after): the frames that follow, large and small, on the stream that waited and on new calls, come out whole."""
    server: ServerProcess = configured_server({"limits": {"idle_buffer_release_seconds": 1}})
    with server.channel() as channel:
        grpc.channel_ready_future(channel).result(timeout=RPC_TIMEOUT)
        stub = stubs.interop_pb2_grpc.InteropTestServiceStub(channel)
        watch = _watch(channel, protos)
        first = _descriptors(channel, protos)
        for round in range(3):
            time.sleep(2.5)
            _large_unary(stub, pb, round)
            assert _descriptors(channel, protos) == first
            time.sleep(2.5)
            assert _descriptors(channel, protos) == first
        watch.cancel()
        assert watch.code() == grpc.StatusCode.CANCELLED

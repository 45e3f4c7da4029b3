"""grpc's interop test cases against the Swift server, with grpcio as the client, over h2c and TLS."""

from __future__ import annotations

import threading
import time

import grpc
import pytest

from conftest import (
    CANCELLATION_TOKEN_KEY,
    MIB,
    RPC_TIMEOUT,
    SERVICE,
    RequestQueue,
    new_token,
)

ECHO_INITIAL = ("x-grpc-test-echo-initial", "test_initial_metadata_value")
ECHO_TRAILING = ("x-grpc-test-echo-trailing-bin", b"\x0a\x0b\x0a\x0b\x0a\x0b")
NON_ASCII_MESSAGE = "\t\ntest with whitespace\r\nand Unicode BMP \u263a and non-BMP \U0001f608\t\n"


def _metadata_value(metadata, key):
    values = [value for k, value in (metadata or ()) if k == key]
    assert values, f"{key} missing from {metadata}"
    assert len(values) == 1, f"{key} repeated in {metadata}"
    return values[0]


def _assert_echoed(call):
    assert _metadata_value(call.initial_metadata(), ECHO_INITIAL[0]) == ECHO_INITIAL[1]
    assert _metadata_value(call.trailing_metadata(), ECHO_TRAILING[0]) == ECHO_TRAILING[1]


# ---------------------------------------------------------------------------------------------------
# Basic call shapes


def test_empty_unary(stub, pb):
    response, call = stub.EmptyCall.with_call(pb.Empty(), timeout=RPC_TIMEOUT)
    assert response == pb.Empty()
    assert call.code() == grpc.StatusCode.OK


def test_large_unary(stub, pb):
    request_payload = bytes(range(256)) * (3 * MIB // 512)  # 1.5 MiB with a pattern that catches reordering
    response_size = 2 * MIB + 17
    response = stub.UnaryCall(
        pb.SimpleRequest(response_size=response_size, payload=request_payload), timeout=RPC_TIMEOUT
    )
    assert len(response.payload) == response_size
    assert response.payload == bytes(response_size)


def test_server_streaming_10000_messages_read_slowly(stub, pb):
    """10,000 responses (~10 MB) against a client that pauses: only flow control keeps the server in step."""
    count = 10_000
    sizes = [(i * 37) % 2000 + 1 for i in range(count)]
    request = pb.StreamingOutputCallRequest(
        response_parameters=[pb.ResponseParameters(size=size) for size in sizes]
    )
    received = []
    for index, response in enumerate(stub.StreamingOutputCall(request, timeout=120)):
        received.append(len(response.payload))
        assert response.payload == bytes(len(response.payload))
        if index % 1000 == 999:
            time.sleep(0.25)  # the server must stop once windows and its buffer are full, not drop or reorder
    assert len(received) == count
    assert received == sizes


def test_client_streaming(stub, pb):
    sizes = [27182, 8, 1828, 45904]
    requests = [pb.StreamingInputCallRequest(payload=bytes(size)) for size in sizes]
    response = stub.StreamingInputCall(iter(requests), timeout=RPC_TIMEOUT)
    assert response.aggregated_payload_size == sum(sizes) == 74922


def test_ping_pong(stub, pb):
    request_sizes = [27182, 8, 1828, 45904]
    response_sizes = [31415, 9, 2653, 58979]
    requests = RequestQueue()
    call = stub.FullDuplexCall(iter(requests), timeout=RPC_TIMEOUT)
    try:
        for request_size, response_size in zip(request_sizes, response_sizes):
            requests.put(pb.StreamingOutputCallRequest(
                response_parameters=[pb.ResponseParameters(size=response_size)],
                payload=bytes(request_size),
            ))
            response = next(call)
            assert len(response.payload) == response_size
        requests.close()
        assert list(call) == []
        assert call.code() == grpc.StatusCode.OK
    finally:
        requests.close()
        call.cancel()


def test_client_compressed_unary(stub, pb):
    """A gzip-compressed request (compressed flag set, grpc-encoding: gzip) is decompressed by the server."""
    request = pb.SimpleRequest(response_size=1234, payload=bytes(100_000))
    response = stub.UnaryCall(request, compression=grpc.Compression.Gzip, timeout=RPC_TIMEOUT)
    assert response.payload == bytes(1234)


def test_empty_stream(stub, pb):
    call = stub.FullDuplexCall(iter([]), timeout=RPC_TIMEOUT)
    assert list(call) == []
    assert call.code() == grpc.StatusCode.OK


# ---------------------------------------------------------------------------------------------------
# Status and metadata


def test_status_code_and_message_unary(stub, pb):
    request = pb.SimpleRequest(response_status=pb.EchoStatus(code=2, message=NON_ASCII_MESSAGE))
    with pytest.raises(grpc.RpcError) as raised:
        stub.UnaryCall(request, timeout=RPC_TIMEOUT)
    assert raised.value.code() == grpc.StatusCode.UNKNOWN
    assert raised.value.details() == NON_ASCII_MESSAGE


def test_status_code_and_message_full_duplex(stub, pb):
    request = pb.StreamingOutputCallRequest(response_status=pb.EchoStatus(code=2, message=NON_ASCII_MESSAGE))
    call = stub.FullDuplexCall(iter([request]), timeout=RPC_TIMEOUT)
    with pytest.raises(grpc.RpcError):
        list(call)
    assert call.code() == grpc.StatusCode.UNKNOWN
    assert call.details() == NON_ASCII_MESSAGE


def test_status_code_and_message_after_messages(stub, pb):
    """A status after responses travels in real trailers, not Trailers-Only."""
    request = pb.StreamingOutputCallRequest(
        response_parameters=[pb.ResponseParameters(size=10)] * 3,
        response_status=pb.EchoStatus(code=9, message="stopped after 3 \u2713"),
    )
    call = stub.StreamingOutputCall(request, timeout=RPC_TIMEOUT)
    received = []
    with pytest.raises(grpc.RpcError):
        for response in call:
            received.append(len(response.payload))
    assert received == [10, 10, 10]
    assert call.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert call.details() == "stopped after 3 \u2713"


def test_custom_metadata_unary(stub, pb):
    response, call = stub.UnaryCall.with_call(
        pb.SimpleRequest(response_size=314159, payload=bytes(271828)),
        metadata=[ECHO_INITIAL, ECHO_TRAILING],
        timeout=RPC_TIMEOUT,
    )
    assert len(response.payload) == 314159
    _assert_echoed(call)


def test_custom_metadata_server_streaming(stub, pb):
    call = stub.StreamingOutputCall(
        pb.StreamingOutputCallRequest(response_parameters=[pb.ResponseParameters(size=31415)] * 2),
        metadata=[ECHO_INITIAL, ECHO_TRAILING],
        timeout=RPC_TIMEOUT,
    )
    assert [len(r.payload) for r in call] == [31415, 31415]
    _assert_echoed(call)


def test_custom_metadata_client_streaming(stub, pb):
    response, call = stub.StreamingInputCall.with_call(
        iter([pb.StreamingInputCallRequest(payload=bytes(1000))] * 3),
        metadata=[ECHO_INITIAL, ECHO_TRAILING],
        timeout=RPC_TIMEOUT,
    )
    assert response.aggregated_payload_size == 3000
    _assert_echoed(call)


def test_custom_metadata_full_duplex(stub, pb):
    request = pb.StreamingOutputCallRequest(
        response_parameters=[pb.ResponseParameters(size=314159)], payload=bytes(271828)
    )
    call = stub.FullDuplexCall(iter([request]), metadata=[ECHO_INITIAL, ECHO_TRAILING], timeout=RPC_TIMEOUT)
    assert [len(r.payload) for r in call] == [314159]
    _assert_echoed(call)


def test_custom_metadata_on_failed_call(stub, pb):
    """Trailing metadata of an error status reaches the client along with the status."""
    request = pb.SimpleRequest(response_status=pb.EchoStatus(code=5, message="nope"))
    with pytest.raises(grpc.RpcError) as raised:
        stub.UnaryCall(request, metadata=[ECHO_INITIAL, ECHO_TRAILING], timeout=RPC_TIMEOUT)
    error = raised.value
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert _metadata_value(error.initial_metadata(), ECHO_INITIAL[0]) == ECHO_INITIAL[1]
    assert _metadata_value(error.trailing_metadata(), ECHO_TRAILING[0]) == ECHO_TRAILING[1]


# ---------------------------------------------------------------------------------------------------
# Deadlines and cancellation (the server-side handler must observe it)


def test_timeout_on_sleeping_server(stub, pb, cancellation):
    token = new_token()
    started = time.monotonic()
    with pytest.raises(grpc.RpcError) as raised:
        stub.Sleep(pb.SleepRequest(milliseconds=5000, cancellation_token=token), timeout=0.1)
    assert raised.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert time.monotonic() - started < 2.0
    # The handler must be cancelled at the deadline, long before its 5 s sleep would end.
    report = cancellation.wait_finished(token, timeout=3.0)
    assert report.cancelled


def test_sleep_completes_without_cancellation(stub, pb, cancellation):
    token = new_token()
    stub.Sleep(pb.SleepRequest(milliseconds=50, cancellation_token=token), timeout=RPC_TIMEOUT)
    report = cancellation.wait_finished(token)
    assert not report.cancelled


def test_cancel_after_begin(stub, pb, cancellation):
    token = new_token()
    release = threading.Event()

    def never_sends():
        release.wait(RPC_TIMEOUT)
        return
        yield  # a generator that sends nothing until released

    future = stub.StreamingInputCall.future(
        never_sends(), metadata=[(CANCELLATION_TOKEN_KEY, token)], timeout=RPC_TIMEOUT
    )
    try:
        report = cancellation.wait_started(token)
        assert not report.cancelled and not report.finished
        assert future.cancel()
        with pytest.raises(grpc.FutureCancelledError):
            future.result(timeout=RPC_TIMEOUT)
        report = cancellation.wait_finished(token)
        assert report.cancelled
    finally:
        release.set()


def test_cancel_after_first_response(stub, pb, cancellation):
    token = new_token()
    requests = RequestQueue()
    call = stub.FullDuplexCall(iter(requests), timeout=RPC_TIMEOUT)
    try:
        requests.put(pb.StreamingOutputCallRequest(
            response_parameters=[pb.ResponseParameters(size=31415)],
            payload=bytes(27182),
            cancellation_token=token,
        ))
        assert len(next(call).payload) == 31415
        call.cancel()
        assert call.code() == grpc.StatusCode.CANCELLED
        report = cancellation.wait_finished(token)
        assert report.cancelled
    finally:
        requests.close()


def test_cancel_during_server_stream(stub, pb, cancellation):
    """A client that cancels while the server is blocked on flow control unblocks and cancels the writer."""
    token = new_token()
    request = pb.StreamingOutputCallRequest(
        response_parameters=[pb.ResponseParameters(size=64 * 1024)] * 1024,  # 64 MiB: far beyond all windows
        cancellation_token=token,
    )
    call = stub.StreamingOutputCall(request, timeout=RPC_TIMEOUT)
    assert len(next(call).payload) == 64 * 1024
    time.sleep(0.3)  # let the server fill the windows and block
    assert not cancellation.report(token).finished, "the server wrote 64 MiB without the client reading"
    call.cancel()
    report = cancellation.wait_finished(token)
    assert report.cancelled


# ---------------------------------------------------------------------------------------------------
# Unimplemented and limits


def _identity(channel, path):
    return channel.unary_unary(path, request_serializer=lambda b: b, response_deserializer=lambda b: b)


def test_unimplemented_service(channel):
    method = _identity(channel, "/entitlementd.testing.UnimplementedService/UnimplementedCall")
    with pytest.raises(grpc.RpcError) as raised:
        method(b"", timeout=RPC_TIMEOUT)
    assert raised.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_unimplemented_method(channel):
    method = _identity(channel, f"/{SERVICE}/UnimplementedCall")
    with pytest.raises(grpc.RpcError) as raised:
        method(b"", timeout=RPC_TIMEOUT)
    assert raised.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert "UnimplementedCall" in (raised.value.details() or "")


def test_oversized_request_is_resource_exhausted(stub, pb):
    request = pb.SimpleRequest(response_size=1, payload=bytes(4 * MIB + 1))
    with pytest.raises(grpc.RpcError) as raised:
        stub.UnaryCall(request, timeout=RPC_TIMEOUT)
    assert raised.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    # The connection survives: the next call on the same channel works.
    assert len(stub.UnaryCall(pb.SimpleRequest(response_size=5), timeout=RPC_TIMEOUT).payload) == 5


def test_request_just_under_limit_is_accepted(stub, pb):
    # 4 MiB minus the SimpleRequest framing (tag + 4-byte length varint + response_size field).
    request = pb.SimpleRequest(response_size=1, payload=bytes(4 * MIB - 16))
    assert request.ByteSize() <= 4 * MIB
    assert len(stub.UnaryCall(request, timeout=RPC_TIMEOUT).payload) == 1


def test_concurrent_calls_on_one_connection(stub, pb):
    futures = [
        stub.UnaryCall.future(pb.SimpleRequest(response_size=1000 + i, payload=bytes(i)), timeout=RPC_TIMEOUT)
        for i in range(50)
    ]
    assert [len(f.result(timeout=RPC_TIMEOUT).payload) for f in futures] == [1000 + i for i in range(50)]


# ---------------------------------------------------------------------------------------------------
# Trailers larger than a client or the server's send limit allow

TRAILER_PADDING_KEY = "x-interop-trailer-padding-bytes"
# grpcio's own limit is 8 KiB: raise it so that what arrives is what the server sent.
LARGE_METADATA_OPTIONS = [("grpc.max_metadata_size", 4 * MIB), ("grpc.absolute_max_metadata_size", 4 * MIB)]


def _unary_with_trailer_padding(channel_of, pb, padding: int, deadline: float = 10.0):
    with channel_of(LARGE_METADATA_OPTIONS) as channel:
        stub = channel.unary_unary(f"/{SERVICE}/UnaryCall", request_serializer=pb.SimpleRequest.SerializeToString,
                                   response_deserializer=pb.SimpleResponse.FromString)
        started = time.monotonic()
        try:
            _, outcome = stub.with_call(pb.SimpleRequest(response_size=1), timeout=deadline,
                                        metadata=[(TRAILER_PADDING_KEY, str(padding))])
        except grpc.RpcError as error:
            outcome = error
        return outcome, time.monotonic() - started


def _padding_bytes(metadata) -> int:
    return sum(len(value) for key, value in (metadata or ()) if key == "x-interop-padding-bin")


@pytest.mark.parametrize("padding", [64 * 1024, 100 * 1024])
def test_trailers_over_the_send_limit_reset_the_stream_instead_of_hanging(server, pb, padding):
    # The default send limit is 64 KiB of HPACK-encoded block; these trailers are over it once encoded.
    outcome, elapsed = _unary_with_trailer_padding(server.channel, pb, padding)
    assert elapsed < 5, f"the call took {elapsed:.1f}s: it hung until its deadline"
    assert outcome.code() == grpc.StatusCode.INTERNAL, outcome
    deadline = time.monotonic() + 5
    while "response headers not sent" not in server.log() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "response headers not sent" in server.log()


def test_trailers_up_to_the_configured_maximum_go_out_whole(configured_server, pb):
    server = configured_server({"limits": {"max_response_header_bytes": 512 * 1024}})
    for padding in (64 * 1024, 100 * 1024, 300 * 1024):
        outcome, elapsed = _unary_with_trailer_padding(server.channel, pb, padding)
        assert elapsed < 5
        assert outcome.code() == grpc.StatusCode.OK, outcome
        assert _padding_bytes(outcome.trailing_metadata()) == padding
    # Over the configured maximum: reset, not a hang.
    outcome, elapsed = _unary_with_trailer_padding(server.channel, pb, 600 * 1024)
    assert elapsed < 5 and outcome.code() == grpc.StatusCode.INTERNAL


def test_a_long_status_message_is_cut_to_a_bounded_length(stub, pb):
    request = pb.SimpleRequest(response_status=pb.EchoStatus(code=3, message="x" * 100_000))
    with pytest.raises(grpc.RpcError) as raised:
        stub.UnaryCall(request, timeout=RPC_TIMEOUT)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    details = raised.value.details()
    assert 0 < len(details.encode()) <= 1024 and details.startswith("xxx") and details.endswith("…")


# ---------------------------------------------------------------------------------------------------
# grpc.testing.TestService (grpc's own interop service), by hand-encoded messages


def _grpc_testing_server_id(channel) -> str:
    """grpc.testing.TestService/UnaryCall with SimpleRequest{response_size: 1, fill_server_id: true}; the response's
    server_id (SimpleResponse field 4)."""
    call = channel.unary_unary("/grpc.testing.TestService/UnaryCall", request_serializer=lambda raw: raw,
                               response_deserializer=lambda raw: raw)
    response = call(bytes([0x10, 0x01, 0x48, 0x01]), timeout=RPC_TIMEOUT)
    index = 0
    while index < len(response):
        tag, length = response[index], response[index + 1]
        assert tag & 7 == 2 and length < 0x80, response  # length-delimited fields, short in this response
        if tag >> 3 == 4:
            return response[index + 2:index + 2 + length].decode()
        index += 2 + length
    return ""


def test_pick_first_unary_sees_one_server_id_per_server(h2c_server, fresh_server):
    """grpc-go's `pick_first_unary` interop case: 100 calls asking `fill_server_id` all name the same, non-empty
    server; another server names itself differently."""
    with grpc.insecure_channel(f"{h2c_server.host}:{h2c_server.port}") as channel:
        ids = {_grpc_testing_server_id(channel) for _ in range(100)}
    assert len(ids) == 1 and "" not in ids, ids
    with grpc.insecure_channel(f"{fresh_server.host}:{fresh_server.port}") as channel:
        other = _grpc_testing_server_id(channel)
    assert other and other not in ids, (other, ids)

"""Wire-level behaviour checked with the `h2` library over a plain socket (h2c): requests grpcio never sends,
and exact bytes grpcio would hide."""

from __future__ import annotations

import base64

import pytest

from conftest import SERVICE, frame

UNARY = f"/{SERVICE}/UnaryCall"
EMPTY = f"/{SERVICE}/EmptyCall"


def _simple_response(pb, response):
    messages = response.messages()
    assert len(messages) == 1, f"expected one response message, got {len(messages)}"
    return pb.SimpleResponse.FromString(messages[0])


def test_wrong_content_type_is_415(raw_h2):
    # application/json would be a Connect unary call (test_connect.py).
    connection = raw_h2()
    response = connection.request(connection.grpc_headers(EMPTY, content_type="application/xml"), frame(b""))
    assert response.status == 415


def test_content_type_with_subtype_is_accepted(raw_h2, pb):
    connection = raw_h2()
    request = pb.SimpleRequest(response_size=3).SerializeToString()
    response = connection.request(connection.grpc_headers(UNARY, content_type="application/grpc+proto"), frame(request))
    assert response.status == 200
    assert response.grpc_status == 0
    assert _simple_response(pb, response).payload == b"\0\0\0"


def test_compressed_flag_without_grpc_encoding_is_internal(raw_h2, pb):
    connection = raw_h2()
    request = pb.SimpleRequest(response_size=3).SerializeToString()
    response = connection.request(connection.grpc_headers(UNARY), frame(request, compressed=True))
    assert response.status == 200
    assert response.grpc_status == 13, f"headers={response.headers} trailers={response.trailers}"


def test_unsupported_grpc_encoding_is_unimplemented_with_accept_encoding(raw_h2, pb):
    connection = raw_h2()
    request = pb.SimpleRequest(response_size=3).SerializeToString()
    response = connection.request(
        connection.grpc_headers(UNARY, extra=[("grpc-encoding", "snappy")]), frame(request, compressed=True)
    )
    assert response.status == 200
    assert response.grpc_status == 12, f"headers={response.headers} trailers={response.trailers}"
    accept = response.grpc("grpc-accept-encoding")
    assert accept is not None, f"no grpc-accept-encoding in headers={response.headers} trailers={response.trailers}"
    assert b"snappy" not in accept


def test_message_split_byte_by_byte(raw_h2, pb):
    connection = raw_h2()
    request = frame(pb.SimpleRequest(response_size=100, payload=b"split" * 60).SerializeToString())
    response = connection.request(connection.grpc_headers(UNARY), request, chunk_size=1)
    assert response.grpc_status == 0, f"headers={response.headers} trailers={response.trailers}"
    assert _simple_response(pb, response).payload == bytes(100)


def test_two_messages_in_one_frame_for_client_streaming(raw_h2, pb):
    connection = raw_h2()
    body = b"".join(frame(pb.StreamingInputCallRequest(payload=bytes(n)).SerializeToString()) for n in (7, 11, 13))
    response = connection.request(connection.grpc_headers(f"/{SERVICE}/StreamingInputCall"), body)
    assert response.grpc_status == 0
    [message] = response.messages()
    assert pb.StreamingInputCallResponse.FromString(message).aggregated_payload_size == 31


def test_unknown_method_is_trailers_only(raw_h2):
    connection = raw_h2()
    response = connection.request(connection.grpc_headers(f"/{SERVICE}/NoSuchMethod"), frame(b""))
    assert response.headers_ended_stream, "Trailers-Only must be one HEADERS frame with END_STREAM"
    assert response.data_frames == 0
    assert response.trailers is None
    assert response.status == 200
    assert (response.header("content-type") or b"").startswith(b"application/grpc")
    assert response.header("grpc-status") == b"12"


def test_grpc_message_percent_encoding_on_the_wire(raw_h2, pb):
    message = "50% off: caf\u00e9 \u263a\n\U0001f608 ~"
    expected = b"50%25 off: caf%C3%A9 %E2%98%BA%0A%F0%9F%98%88 ~"
    connection = raw_h2()
    request = pb.SimpleRequest(response_status=pb.EchoStatus(code=3, message=message)).SerializeToString()
    response = connection.request(connection.grpc_headers(UNARY), frame(request))
    assert response.grpc_status == 3
    assert response.grpc("grpc-message") == expected


@pytest.mark.parametrize(
    "value", [b"\x00\x01\x02\xff", b"\xfa\xfb\xfc\xfd\xfe", b"\x10\x20\x30"], ids=["4-bytes", "5-bytes", "3-bytes"]
)
@pytest.mark.parametrize("padded", [True, False], ids=["padded", "unpadded"])
def test_binary_metadata_padded_and_unpadded(raw_h2, value, padded):
    encoded = base64.b64encode(value).decode()
    if not padded:
        encoded = encoded.rstrip("=")
    connection = raw_h2()
    response = connection.request(
        connection.grpc_headers(
            EMPTY,
            extra=[("x-grpc-test-echo-trailing-bin", encoded), ("x-grpc-test-echo-initial", "plain")],
        ),
        frame(b""),
    )
    assert response.grpc_status == 0, f"headers={response.headers} trailers={response.trailers}"
    assert response.header("x-grpc-test-echo-initial") == b"plain"
    echoed = response.trailer("x-grpc-test-echo-trailing-bin")
    assert echoed is not None, f"trailers={response.trailers}"
    assert base64.b64decode(echoed + b"=" * (-len(echoed) % 4), validate=True) == value


def test_many_streams_on_one_connection(raw_h2, pb):
    """Concurrent streams interleave on one connection and each gets its own answer."""
    connection = raw_h2()
    streams = []
    for size in range(1, 21):
        stream_id = connection.start(connection.grpc_headers(UNARY))
        connection.send(stream_id, frame(pb.SimpleRequest(response_size=size).SerializeToString()), end_stream=True)
        streams.append((stream_id, size))
    for stream_id, size in streams:
        response = connection.wait(stream_id)
        assert response.grpc_status == 0
        assert len(_simple_response(pb, response).payload) == size


def test_second_message_on_a_synchronous_unary_call_ends_it_at_once(raw_h2):
    """Health Check runs on the connection's thread once its one message is in: a client that keeps sending
    messages without END_STREAM must be stopped at the second one, not buffered (memory) until it stops."""
    connection = raw_h2()
    stream_id = connection.start(connection.grpc_headers("/grpc.health.v1.Health/Check"), end_stream=False)
    connection.send(stream_id, frame(b""))
    connection.send(stream_id, frame(b""))
    response = connection.wait(stream_id)  # no END_STREAM was sent: the server ended the call itself
    assert response.grpc_status == 12, f"headers={response.headers} trailers={response.trailers}"

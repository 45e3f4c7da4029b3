"""POSTs a store's webhook body to the real server, over HTTP/1.1 (http.client) or HTTP/2 (the raw h2 connection of
conftest, the body in 16 KB DATA frames), the way each store's test helpers send their notifications. Not a test
module."""

from __future__ import annotations

import http.client

from conftest import RPC_TIMEOUT, RawH2Connection


def post_http1(server, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    connection = http.client.HTTPConnection(server.host, server.port, timeout=RPC_TIMEOUT)
    try:
        connection.request("POST", path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        connection.close()


def post_h2(server, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    with RawH2Connection(server.host, server.port) as connection:
        fields = [
            (":method", "POST"), (":scheme", "http"), (":path", path), (":authority", connection.authority),
            *headers.items(), ("content-length", str(len(body))),
        ]
        response = connection.request(fields, body, chunk_size=16_000)
        assert response.reset_code is None, f"stream reset with {response.reset_code}"
        return response.status, response.data.decode("utf-8", "replace")


POSTERS = {"http1": post_http1, "h2": post_h2}

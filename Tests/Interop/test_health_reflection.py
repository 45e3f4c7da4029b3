"""grpc.health.v1 and server reflection (v1 and v1alpha), with message classes compiled from Protos/."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf import descriptor_pb2

from conftest import RPC_TIMEOUT, SERVICE, call_bidirectional, call_server_streaming, call_unary

HEALTH = "grpc.health.v1.Health"
SERVING = 1
REFLECTION_PACKAGES = ["grpc.reflection.v1", "grpc.reflection.v1alpha"]
ENTITLEMENT_SERVICE = "entitlements.v1.EntitlementService"
NOT_FOUND = grpc.StatusCode.NOT_FOUND.value[0]


# ---------------------------------------------------------------------------------------------------
# Health


def _health_request(protos, service: str):
    return protos.message("grpc.health.v1.HealthCheckRequest")(service=service)


def test_health_check_overall_is_serving(channel, protos):
    response = call_unary(
        channel, f"/{HEALTH}/Check", _health_request(protos, ""), protos.message("grpc.health.v1.HealthCheckResponse")
    )
    assert response.status == SERVING


def test_health_check_unknown_service_is_not_found(channel, protos):
    with pytest.raises(grpc.RpcError) as raised:
        call_unary(
            channel, f"/{HEALTH}/Check", _health_request(protos, "no.such.Service"),
            protos.message("grpc.health.v1.HealthCheckResponse"),
        )
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND


def test_health_check_answers_for_every_service_reflection_lists(channel, protos):
    """Each service the server serves is registered with the health service by its full name, so a checker can ask
    about the service it calls."""
    [listed] = Reflection(channel, protos, REFLECTION_PACKAGES[0]).ask({"list_services": ""})
    names = [service.name for service in listed.list_services_response.service]
    assert ENTITLEMENT_SERVICE in names and SERVICE in names, names
    for name in names:
        response = call_unary(
            channel, f"/{HEALTH}/Check", _health_request(protos, name),
            protos.message("grpc.health.v1.HealthCheckResponse"),
        )
        assert response.status == SERVING, name


def test_health_watch_first_message_is_serving(channel, protos):
    call = call_server_streaming(
        channel, f"/{HEALTH}/Watch", _health_request(protos, ""),
        protos.message("grpc.health.v1.HealthCheckResponse"), timeout=RPC_TIMEOUT,
    )
    try:
        assert next(call).status == SERVING
    finally:
        call.cancel()
    assert call.code() == grpc.StatusCode.CANCELLED


# ---------------------------------------------------------------------------------------------------
# Reflection


class Reflection:
    def __init__(self, channel, protos, package: str):
        self.channel, self.package = channel, package
        self.Request = protos.message(f"{package}.ServerReflectionRequest")
        self.Response = protos.message(f"{package}.ServerReflectionResponse")

    def ask(self, *requests):
        """Sends every request on one stream; the responses in order (one per request)."""
        call = call_bidirectional(
            self.channel, f"/{self.package}.ServerReflection/ServerReflectionInfo",
            iter([self.Request(**request) for request in requests]), self.Response,
        )
        responses = list(call)
        assert call.code() == grpc.StatusCode.OK
        assert len(responses) == len(requests)
        return responses

    @staticmethod
    def files(response) -> list[descriptor_pb2.FileDescriptorProto]:
        assert response.WhichOneof("message_response") == "file_descriptor_response", response
        return [
            descriptor_pb2.FileDescriptorProto.FromString(raw)
            for raw in response.file_descriptor_response.file_descriptor_proto
        ]


@pytest.fixture(params=REFLECTION_PACKAGES)
def reflection(request, channel, protos) -> Reflection:
    return Reflection(channel, protos, request.param)


def test_reflection_list_services(reflection):
    [response] = reflection.ask({"list_services": ""})
    assert response.WhichOneof("message_response") == "list_services_response", response
    names = [service.name for service in response.list_services_response.service]
    assert len(names) == len(set(names)), f"duplicates in {names}"
    expected = {
        HEALTH,
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
        SERVICE,  # registered on the router though not in the embedded descriptors
    }
    assert expected <= set(names), f"missing {expected - set(names)} from {names}"


def test_reflection_file_containing_health_service(reflection):
    [response] = reflection.ask({"file_containing_symbol": HEALTH})
    files = reflection.files(response)
    assert files[0].name == "grpc/health/v1/health.proto"
    assert files[0].package == "grpc.health.v1"
    [service] = [s for s in files[0].service if s.name == "Health"]
    assert {m.name for m in service.method} == {"Check", "Watch"}
    assert {m.name for m in files[0].message_type} == {"HealthCheckRequest", "HealthCheckResponse"}


def test_reflection_file_containing_entitlement_service_with_dependencies(reflection, protos):
    [response] = reflection.ask({"file_containing_symbol": ENTITLEMENT_SERVICE})
    files = reflection.files(response)
    names = [f.name for f in files]
    defining = protos.file_of_service(ENTITLEMENT_SERVICE)
    assert defining is not None, "EntitlementService not found in Protos/"
    assert names[0] == defining.name
    assert names[0].startswith("entitlements/v1/")
    assert "google/protobuf/timestamp.proto" in names
    # Every (transitive) dependency comes along, so a client can build the descriptors without asking again.
    by_name = {f.name: f for f in files}
    for file in files:
        for dependency in file.dependency:
            assert dependency in by_name, f"{file.name} depends on {dependency}, which was not sent"
    # What the server embeds matches what Protos/ compiles to.
    [service] = [s for s in files[0].service if s.name == "EntitlementService"]
    [expected] = [s for s in defining.service if s.name == "EntitlementService"]
    assert [(m.name, m.input_type, m.output_type, m.server_streaming) for m in service.method] == [
        (m.name, m.input_type, m.output_type, m.server_streaming) for m in expected.method
    ]


def test_reflection_file_containing_message_symbol(reflection):
    [response] = reflection.ask({"file_containing_symbol": "grpc.health.v1.HealthCheckRequest"})
    assert reflection.files(response)[0].name == "grpc/health/v1/health.proto"


def test_reflection_file_by_filename(reflection):
    [response] = reflection.ask({"file_by_filename": "grpc/health/v1/health.proto"})
    assert reflection.files(response)[0].name == "grpc/health/v1/health.proto"


def test_reflection_unknown_symbol_is_not_found(reflection):
    [response] = reflection.ask({"file_containing_symbol": "no.such.Symbol"})
    assert response.WhichOneof("message_response") == "error_response", response
    assert response.error_response.error_code == NOT_FOUND


def test_reflection_several_requests_on_one_stream(reflection):
    requests = [
        {"list_services": ""},
        {"file_containing_symbol": "no.such.Symbol"},
        {"file_by_filename": "grpc/health/v1/health.proto"},
    ]
    responses = reflection.ask(*requests)
    assert [r.WhichOneof("message_response") for r in responses] == [
        "list_services_response", "error_response", "file_descriptor_response",
    ]
    for request, response in zip(requests, responses):
        assert response.original_request == reflection.Request(**request)

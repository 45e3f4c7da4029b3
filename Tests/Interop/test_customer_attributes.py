"""Customer attributes through the real server: EntitlementService.SetAttributes (the app, public key) and
AdminService.SetCustomerAttributes (the backend, secret key that may write). Which keys each may write (the tenant's
"attributes" settings, and their defaults), the limits and syntax (each refused with INVALID_ARGUMENT naming the rule,
changing nothing), what a change records (an ATTRIBUTES event, a CUSTOMER_INFO_CHANGED stream event, a
"customer.attributes_changed" webhook) and what a call that changes nothing does not, GetCustomer's attributes,
FindCustomers by $email, attributes on an Identify merge, and tenant isolation.

Tenant "a" has the default settings, a read-only and a named write key, and three webhook endpoints (every kind, only
attributes_changed, only grant); "b" is another tenant with the same defaults; "c" lets apps write $email and
nickname and its backend plan besides; "d" lets apps write nothing; "e" lets its backend write the apps' keys only;
"play" sells a Google Play product (the fake Google) for FindCustomers' order of matches. The tenants file's
"attributes" rules are checked with `check-config`."""

from __future__ import annotations

import subprocess
import time

import grpc
import pytest

from conftest import RPC_TIMEOUT, server_binary
from entitlement_support import (
    ADMIN_SERVICE, CAUSE, CUSTOMER_INFO_CHANGED, ENTITLEMENT_SERVICE, SNAPSHOT, Clients, active_ids, anon_id,
    key_hash, make_key, new_tenant, ts_seconds, unique_id, write_tenants,
)
from fake_google import FakeGoogle
from play_support import APP, LIFETIME, PlayApi, play_tenant
from webhook_receiver import Receiver

Code = grpc.StatusCode
SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
READER, _ = make_key("sk")
WRITER, _ = make_key("sk")
ATTRIBUTES = 16
APP_USER_ID, TRANSACTION_ID, EMAIL = 1, 4, 6
PLAY_STORE = 2
RESERVED = ["$displayName", "$email", "$locale", "$phoneNumber"]  # sorted

# method -> (service, request type, response type)
ATTRIBUTE_METHODS = {
    "SetAttributes": (ENTITLEMENT_SERVICE, "SetAttributesRequest", "SetAttributesResponse"),
    "SetCustomerAttributes": (ADMIN_SERVICE, "SetCustomerAttributesRequest", "SetCustomerAttributesResponse"),
}


class AttrApi(PlayApi):
    """`PlayApi` with the two attribute calls. `values`: a dict, or (key, value) pairs (to name a key twice)."""

    def attribute_call(self, method: str, app_user_id: str, values=(), unset=()):
        service, request_type, response_type = ATTRIBUTE_METHODS[method]
        request = self.message(request_type, app_user_id=app_user_id, unset_keys=list(unset))
        for key, value in (values.items() if isinstance(values, dict) else values):
            request.attributes.add(key=key, value=value)
        callable_ = self.channel.unary_unary(
            f"/{service}/{method}", request_serializer=lambda m: m.SerializeToString(),
            response_deserializer=self.protos.message(f"entitlements.v1.{response_type}").FromString,
        )
        return callable_(request, timeout=RPC_TIMEOUT, metadata=self._metadata(None))

    def set_attributes(self, app_user_id: str, values=(), unset=()):
        return self.attribute_call("SetAttributes", app_user_id, values, unset)

    def set_customer_attributes(self, app_user_id: str, values=(), unset=()):
        return self.attribute_call("SetCustomerAttributes", app_user_id, values, unset)

    def attribute_error(self, method: str, app_user_id: str, values=(), unset=()) -> grpc.RpcError:
        try:
            result = self.attribute_call(method, app_user_id, values, unset)
        except grpc.RpcError as error:
            return error
        pytest.fail(f"expected {method} to fail, got {result}")

    def attributes(self, app_user_id: str) -> list[tuple[str, str]]:
        return pairs(self.customer(app_user_id).attributes)

    def found(self, query: str) -> list[tuple]:
        return [(m.app_user_id, m.matched_by, m.store, m.original_transaction_id)
                for m in self.call("FindCustomers", query=query).matches]


def pairs(attributes) -> list[tuple[str, str]]:
    return [(attribute.key, attribute.value) for attribute in attributes]


def with_times(attributes) -> list[tuple[str, str, int, int]]:
    return [(a.key, a.value, a.updated_at.seconds, a.updated_at.nanos) for a in attributes]


# --------------------------------------------------------------------------------------------------
# Fixtures


@pytest.fixture(scope="module")
def receivers():
    made = {name: Receiver(secrets=[SECRET]) for name in ("all", "attrs", "grants")}
    yield made
    for receiver in made.values():
        receiver.close()


@pytest.fixture(scope="module")
def fake():
    with FakeGoogle(package=APP) as fake:
        yield fake


@pytest.fixture(scope="module")
def tenants(receivers, fake, tmp_path_factory):
    key_file = fake.write_service_account(tmp_path_factory.mktemp("attr-play") / "service-account.json")
    return {
        "a": new_tenant(
            "attr-a",
            named_secret_keys=[{"key": READER, "name": "viewer", "scope": "read"}, {"key": WRITER, "name": "crm-sync"}],
            webhooks=[
                {"id": "all", "url": receivers["all"].url, "secrets": [SECRET]},
                {"id": "attrs", "url": receivers["attrs"].url, "secrets": [SECRET], "events": ["attributes_changed"]},
                {"id": "grants", "url": receivers["grants"].url, "secrets": [SECRET], "events": ["grant"]},
            ]),
        "b": new_tenant("attr-b"),
        "c": new_tenant("attr-c", attributes={"app_keys": ["$email", "nickname"], "backend_keys": ["plan"]}),
        "d": new_tenant("attr-d", attributes={"app_keys": []}),
        "e": new_tenant("attr-e", attributes={"backend_keys": []}),
        "play": play_tenant(fake, key_file, "attr-play"),
    }


@pytest.fixture(scope="module")
def server(tenants_server, tmp_path_factory, tenants):
    tenants_file = tmp_path_factory.mktemp("attr-tenants") / "tenants.json"
    write_tenants(tenants_file, tenants.values())
    return tenants_server(tenants_file)


class Env(Clients):
    """`env.a` holds tenant "a"'s public key, `env.a_admin` its secret key, and so on; `env.api(key)` any other."""

    api_class = AttrApi

    def __init__(self, server, tenants, protos):
        super().__init__(server, protos)
        self.tenants = tenants
        channel = self.channel()
        for name, tenant in tenants.items():
            setattr(self, name, self.api(tenant.public_key, channel))
            setattr(self, f"{name}_admin", self.api(tenant.secret_key, channel))


@pytest.fixture(scope="module")
def shared_env(server, tenants, protos):
    """One channel for the module (a channel per test costs more than most tests here)."""
    made = Env(server, tenants, protos)
    yield made
    made.close()


@pytest.fixture
def env(shared_env, server):
    yield shared_env
    for api in shared_env._apis:
        api.cancel_streams()
    assert server.process.poll() is None, f"server died:\n{server.describe()}"


def state(admin, user: str) -> tuple:
    """What a refused call must leave as it was: the attributes with their times, the version, the events."""
    customer = admin.customer(user)
    return with_times(customer.attributes), customer.customer.version, len(admin.all_events(user))


def assert_not_found(admin, user: str) -> None:
    assert admin.error("GetCustomer", app_user_id=user).code() == Code.NOT_FOUND


# --------------------------------------------------------------------------------------------------
# Setting, reading, normalising


def test_the_app_sets_reserved_keys_for_a_new_user_stored_normalised(env):
    user = unique_id()
    before = time.time()
    response = env.a.set_attributes(user, {
        "$phoneNumber": "+1 (555) 010-0199", "$locale": "en_us", "$email": "Ana.Silva@Example.com",
        "$displayName": "Ana Silva"})
    expected = [("$displayName", "Ana Silva"), ("$email", "Ana.Silva@Example.com"), ("$locale", "en-US"),
                ("$phoneNumber", "+15550100199")]
    assert response.app_user_id == user
    assert list(response.changed_keys) == RESERVED
    assert pairs(response.attributes) == expected
    customer = env.a_admin.customer(user)
    assert pairs(customer.attributes) == expected
    assert with_times(customer.attributes) == with_times(response.attributes)
    for attribute in customer.attributes:
        assert before - 1 <= ts_seconds(attribute.updated_at) <= time.time() + 1
    # Created on first sight (version 1), then the change (version 2); no status.
    assert customer.customer.version == 2 and active_ids(customer.customer) == []
    assert [(e.version, e.cause) for e in env.a_admin.all_events(user)] == [(2, ATTRIBUTES), (1, CAUSE["CREATED"])]


@pytest.mark.parametrize("key, given, stored", [
    ("$phoneNumber", "+1 (555) 010-0199", "+15550100199"),
    ("$phoneNumber", "+44.20.7946.0958", "+442079460958"),
    ("$phoneNumber", "+12345678", "+12345678"),
    ("$phoneNumber", "+123456789012345", "+123456789012345"),
    ("$locale", "en_us", "en-US"),
    ("$locale", "pt-br", "pt-BR"),
    ("$locale", "zh-Hant-TW", "zh-Hant-TW"),
    ("$locale", "EN", "en"),
    ("$locale", "es-419", "es-419"),
    ("$locale", "yue", "yue"),
    ("$email", "first.last+tag@mail.example.co.uk", "first.last+tag@mail.example.co.uk"),
    ("$email", "o'brien@example.com", "o'brien@example.com"),
    ("$email", "jörg@bücher.de", "jörg@bücher.de"),
    ("$email", "a" * 64 + "@example.com", "a" * 64 + "@example.com"),
    ("$email", "a" * 64 + "@" + "b" * 63 + "." + "c" * 63 + "." + "d" * 61, None),  # 254 bytes
    ("$displayName", "José 🎉 Ñúñez", "José 🎉 Ñúñez"),
    ("$displayName", "x" * 500, "x" * 500),
    ("$displayName", "é" * 250, "é" * 250),  # 500 bytes
])
def test_reserved_values_accepted_and_how_they_are_stored(env, key, given, stored):
    stored = given if stored is None else stored
    user = unique_id()
    response = env.a.set_attributes(user, {key: given})
    assert pairs(response.attributes) == [(key, stored)] and list(response.changed_keys) == [key]
    assert env.a_admin.attributes(user) == [(key, stored)]


def test_backend_keys_at_their_limits_are_accepted(env):
    user = unique_id()
    values = {"k" * 40: "v", "0.crm_id-x": "42", "Z": "x" * 500}
    response = env.a_admin.set_customer_attributes(user, values)
    assert list(response.changed_keys) == sorted(values)
    assert env.a_admin.attributes(user) == sorted(values.items())


def test_get_customer_lists_attributes_by_key_each_with_its_own_time(env):
    user = unique_id()
    env.a_admin.set_customer_attributes(user, {"zeta": "1", "alpha": "2", "$email": "s@example.com", "Mid": "3"})
    first = {a.key: ts_seconds(a.updated_at) for a in env.a_admin.customer(user).attributes}
    time.sleep(0.05)
    env.a_admin.set_customer_attributes(user, {"alpha": "changed", "zeta": "1"})  # zeta: the same value
    customer = env.a_admin.customer(user)
    assert pairs(customer.attributes) == [
        ("$email", "s@example.com"), ("Mid", "3"), ("alpha", "changed"), ("zeta", "1")]
    times = {a.key: ts_seconds(a.updated_at) for a in customer.attributes}
    assert times["alpha"] > first["alpha"]
    assert {k: times[k] for k in ("$email", "Mid", "zeta")} == {k: first[k] for k in ("$email", "Mid", "zeta")}


def test_the_apps_answer_lists_only_what_apps_may_write_the_backends_everything(env):
    user = unique_id()
    backend = env.a_admin.set_customer_attributes(user, {"plan": "gold", "$email": "p@example.com"})
    assert pairs(backend.attributes) == [("$email", "p@example.com"), ("plan", "gold")]
    app = env.a.set_attributes(user, {"$locale": "de_de"})
    assert pairs(app.attributes) == [("$email", "p@example.com"), ("$locale", "de-DE")]
    assert list(app.changed_keys) == ["$locale"] and app.app_user_id == user
    # The backend's key is still there, and the app may remove its own keys.
    app = env.a.set_attributes(user, unset=["$email"])
    assert list(app.changed_keys) == ["$email"] and pairs(app.attributes) == [("$locale", "de-DE")]
    assert env.a_admin.attributes(user) == [("$locale", "de-DE"), ("plan", "gold")]


def test_a_named_write_key_sets_attributes_and_the_event_names_it(env):
    user = unique_id()
    response = env.api(WRITER).set_customer_attributes(user, {"crm_id": "C-1"})
    assert list(response.changed_keys) == ["crm_id"]
    newest = env.a_admin.all_events(user)[0]
    assert (newest.cause, newest.key_name) == (ATTRIBUTES, "crm-sync")


# --------------------------------------------------------------------------------------------------
# Tenant settings


def test_configured_keys_decide_what_the_app_and_the_backend_may_write(env):
    user = unique_id()
    app = env.c.set_attributes(user, {"$email": "c@example.com", "nickname": "Cy"})
    assert list(app.changed_keys) == ["$email", "nickname"]
    backend = env.c_admin.set_customer_attributes(user, {"plan": "gold", "nickname": "Cyd", "$email": "d@example.com"})
    assert list(backend.changed_keys) == ["$email", "nickname", "plan"]
    assert pairs(backend.attributes) == [("$email", "d@example.com"), ("nickname", "Cyd"), ("plan", "gold")]
    # The app reads back what it may write only.
    app = env.c.set_attributes(user, {"nickname": "C"})
    assert pairs(app.attributes) == [("$email", "d@example.com"), ("nickname", "C")]
    # A tenant whose apps write nothing still lets its backend write any key.
    backend = env.d_admin.set_customer_attributes(user, {"$email": "d@example.com", "anything": "1"})
    assert list(backend.changed_keys) == ["$email", "anything"]
    # Empty backend_keys: the backend writes the apps' keys (the default ones), and the apps too.
    backend = env.e_admin.set_customer_attributes(user, {"$email": "e@example.com", "$locale": "it"})
    assert list(backend.changed_keys) == ["$email", "$locale"]
    assert list(env.e.set_attributes(user, {"$displayName": "E"}).changed_keys) == ["$displayName"]


# tenant, caller ("app", "admin", "reader", "app-on-admin": the public key on AdminService), values, unset, what the
# message says
PERMISSION_DENIED_CASES = {
    "app sets a backend key": (
        "a", "app", {"plan": "gold"}, [], "attributes[0].key: key 'plan' is not one an app may write"),
    "app unsets a backend key": ("a", "app", {}, ["plan"], "unset_keys[0]: key 'plan' is not one an app may write"),
    "app sets an allowed and a backend key": (
        "a", "app", {"$email": "x@example.com", "crm_id": "1"}, [], "attributes[1].key: key 'crm_id'"),
    "app key not in app_keys": ("c", "app", {"$locale": "fr"}, [], "key '$locale' is not one an app may write"),
    "backend key of c on its app": ("c", "app", {"plan": "gold"}, [], "key 'plan' is not one an app may write"),
    "backend key not in backend_keys": (
        "c", "admin", {"crm_id": "1"}, [], "key 'crm_id' is not one the backend may write"),
    "reserved key in neither list": (
        "c", "admin", {"$locale": "fr"}, [], "key '$locale' is not one the backend may write"),
    "backend unsets a key in neither list": ("c", "admin", {}, ["crm_id"], "unset_keys[0]: key 'crm_id'"),
    "backend key when backend_keys is empty": ("e", "admin", {"plan": "gold"}, [], "key 'plan' is not one the backend"),
    "app of a tenant whose apps write nothing": (
        "d", "app", {"$email": "x@example.com"}, [], "key '$email' is not one an app"),
    "read-only key": ("a", "reader", {"plan": "gold"}, [], "'viewer' is read-only"),
    "public key on AdminService": ("a", "app-on-admin", {"$email": "x@example.com"}, [], ""),
}


def _caller(env, tenant: str, who: str):
    if who == "reader":
        return env.api(READER), "SetCustomerAttributes"
    if who == "app-on-admin":
        return getattr(env, tenant), "SetCustomerAttributes"
    if who == "app":
        return getattr(env, tenant), "SetAttributes"
    return getattr(env, f"{tenant}_admin"), "SetCustomerAttributes"


@pytest.mark.parametrize("case", list(PERMISSION_DENIED_CASES))
def test_keys_a_caller_may_not_write_are_permission_denied_and_change_nothing(env, case):
    tenant, who, values, unset, needle = PERMISSION_DENIED_CASES[case]
    api, method = _caller(env, tenant, who)
    admin = getattr(env, f"{tenant}_admin")
    # A customer that exists (with a key the call names)...
    user = unique_id()
    admin.set_customer_attributes(user, {"c": {"plan": "silver"}, "e": {"$locale": "en"}}.get(tenant, {"crm_id": "0"}))
    before = state(admin, user)
    error = api.attribute_error(method, user, values, unset)
    assert error.code() == Code.PERMISSION_DENIED, (error.code(), error.details())
    assert needle in error.details()
    assert state(admin, user) == before
    # ... and one the call would create.
    stranger = unique_id()
    assert api.attribute_error(method, stranger, values, unset).code() == Code.PERMISSION_DENIED
    assert_not_found(admin, stranger)


@pytest.mark.parametrize("method", list(ATTRIBUTE_METHODS))
def test_a_call_without_a_key_is_unauthenticated(env, method):
    user = unique_id()
    error = env.api(None).attribute_error(method, user, {"$email": "x@example.com"})
    assert error.code() == Code.UNAUTHENTICATED
    assert_not_found(env.a_admin, user)


@pytest.mark.parametrize("method", list(ATTRIBUTE_METHODS))
@pytest.mark.parametrize("app_user_id", ["", "null", " padded", "$anon:"])
def test_a_bad_app_user_id_is_invalid(env, method, app_user_id):
    api = env.a if method == "SetAttributes" else env.a_admin
    error = api.attribute_error(method, app_user_id, {"$email": "x@example.com"})
    assert error.code() == Code.INVALID_ARGUMENT and "app_user_id" in error.details()


# --------------------------------------------------------------------------------------------------
# Limits


def _email_of(total: int) -> str:
    """An address of `total` bytes: 64 before @, then labels of at most 63."""
    domain = total - 65
    labels, left = [], domain
    while left > 64:
        labels.append("b" * 63)
        left -= 64
    labels.append("c" * left)
    return "a" * 64 + "@" + ".".join(labels)


MANY = [(f"k{i}", "v") for i in range(51)]

# values, unset, what the message says. Value rules on $displayName, which apps and the backend may both write.
INVALID_CASES = {
    "both lists empty": ([], [], "attributes and unset_keys are both empty"),
    "51 keys set": (MANY, [], "A call changes at most 50 keys; this one names 51"),
    "51 keys unset": ([], [k for k, _ in MANY], "A call changes at most 50 keys; this one names 51"),
    "26 set and 25 unset": (MANY[:26], [k for k, _ in MANY[26:]], "at most 50 keys; this one names 51"),
    "a key set twice": ([("$email", "a@example.com"), ("$email", "b@example.com")], [],
                        "attributes[1].key: key '$email' is named twice"),
    "a key set and unset": ([("$email", "a@example.com")], ["$email"], "unset_keys[0]: key '$email' is named twice"),
    "a key unset twice": ([], ["$locale", "$locale"], "unset_keys[1]: key '$locale' is named twice"),
    "empty key": ([("", "v")], [], "attributes[0].key: an attribute key is empty"),
    "empty key unset": ([], [""], "unset_keys[0]: an attribute key is empty"),
    "41-byte key": ([("k" * 41, "v")], [], "key is 41 bytes; keys are 1 to 40 bytes"),
    "41-byte key unset": ([], ["k" * 41], "unset_keys[0]: key is 41 bytes"),
    "key starting with _": ([("_id", "v")], [], "key '_id' is not a letter or digit followed by"),
    "key starting with -": ([("-id", "v")], [], "key '-id' is not a letter or digit"),
    "key starting with .": ([(".id", "v")], [], "key '.id' is not a letter or digit"),
    "key with a space": ([("crm id", "v")], [], "is not a letter or digit"),
    "key with /": ([("crm/id", "v")], [], "is not a letter or digit"),
    "key with @": ([("a@b", "v")], [], "is not a letter or digit"),
    "key with a colon": ([("crm:id", "v")], [], "is not a letter or digit"),
    "non-ASCII key": ([("ñame", "v")], [], "is not a letter or digit"),
    "key with a newline": ([("a\nb", "v")], [], "key 'a<U+000A>b' is not a letter or digit"),
    "unknown $ key": ([("$name", "v")], [], "key '$name' starts with $, which only the reserved keys do"),
    "reserved key in another case": ([("$Email", "v")], [], "key '$Email' starts with $"),
    "unknown $ key unset": ([], ["$foo"], "unset_keys[0]: key '$foo' starts with $"),
    "empty value": ([("$displayName", "")], [], "attributes[0].value ($displayName): the value is empty"),
    "501-byte value": ([("$displayName", "x" * 501)], [], "the value is 501 bytes; values are 1 to 500 bytes"),
    "502 bytes in 251 characters": ([("$displayName", "é" * 251)], [], "the value is 502 bytes"),
    "newline in a value": ([("$displayName", "Ana\nSilva")], [], "control character U+000A"),
    "NUL in a value": ([("$displayName", "Ana\x00")], [], "control character U+0000"),
    "DEL in a value": ([("$displayName", "A\x7fna")], [], "control character U+007F"),
    "C1 control in a value": ([("$displayName", "A\x85na")], [], "control character U+0085"),
    "line separator in a value": ([("$displayName", "Ana\u2028Silva")], [], "control character U+2028"),
    "leading space": ([("$displayName", " Ana")], [], "the value starts or ends with whitespace"),
    "trailing space": ([("$displayName", "Ana ")], [], "the value starts or ends with whitespace"),
    "trailing no-break space": ([("$displayName", "Ana\u00a0")], [], "starts or ends with whitespace"),
    "leading ideographic space": ([("$displayName", "\u3000Ana")], [], "starts or ends with whitespace"),
    "email without @": ([("$email", "ana.example.com")], [], "is not an e-mail address: it needs exactly one @"),
    "email with two @": ([("$email", "a@b@example.com")], [], "it needs exactly one @"),
    "email without local part": ([("$email", "@example.com")], [], "the part before @ is 1 to 64 bytes"),
    "email with 65-byte local part": ([("$email", "a" * 65 + "@example.com")], [], "the part before @ is 1 to 64"),
    "email with two dots": ([("$email", "ana..silva@example.com")], [], "empty dot-separated part"),
    "email with leading dot": ([("$email", ".ana@example.com")], [], "empty dot-separated part"),
    "email with a space": ([("$email", "ana silva@example.com")], [], "the part before @ contains U+0020"),
    "email with a quote": ([("$email", '"ana"@example.com')], [], "the part before @ contains U+0022"),
    "email with one label": ([("$email", "ana@localhost")], [], "the domain needs at least two labels"),
    "email with an empty label": ([("$email", "ana@example..com")], [], "each label of the domain is 1 to 63 bytes"),
    "email ending with a dot": ([("$email", "ana@example.com.")], [], "each label of the domain is 1 to 63 bytes"),
    "email with a 64-byte label": ([("$email", "ana@" + "x" * 64 + ".com")], [], "each label of the domain is 1 to 63"),
    "email label starting with -": ([("$email", "ana@-example.com")], [], "a label of the domain starts or ends"),
    "email label ending with -": ([("$email", "ana@example-.com")], [], "a label of the domain starts or ends with -"),
    "email domain with _": ([("$email", "ana@ex_ample.com")], [], "the domain contains U+005F"),
    "email of 255 bytes": ([("$email", _email_of(255))], [], "an address is at most 254 bytes"),
    "phone without +": ([("$phoneNumber", "15550100199")], [], "is not an E.164 number: it starts with +"),
    "phone country code 0": ([("$phoneNumber", "+05550100199")], [], "country codes do not start with 0"),
    "phone of 7 digits": ([("$phoneNumber", "+1234567")], [], "it has 7 digits, not 8 to 15"),
    "phone of 16 digits": ([("$phoneNumber", "+1234567890123456")], [], "it has 16 digits, not 8 to 15"),
    "phone with letters": ([("$phoneNumber", "+1 555 CALL NOW")], [], "only digits, spaces, hyphens, dots"),
    "phone with /": ([("$phoneNumber", "+1/555/0100199")], [], "only digits, spaces, hyphens, dots"),
    "phone with two +": ([("$phoneNumber", "++15550100199")], [], "only digits, spaces, hyphens, dots"),
    "locale e": ([("$locale", "e")], [], "is not a BCP 47 language tag: it starts with a language of 2 or 3 letters"),
    "locale english": ([("$locale", "english")], [], "it starts with a language of 2 or 3 letters"),
    "locale with a digit language": ([("$locale", "e1")], [], "it starts with a language of 2 or 3 letters"),
    "locale en--US": ([("$locale", "en--US")], [], "each subtag after the language is 1 to 8 letters and digits"),
    "locale ending with -": ([("$locale", "en-")], [], "each subtag after the language is 1 to 8"),
    "locale with a 9-letter subtag": ([("$locale", "en-abcdefghi")], [], "each subtag after the language is 1 to 8"),
    "locale of 36 bytes": ([("$locale", "en-" + "-".join(["abcdefgh"] * 3) + "-abcdef")], [], "at most 35 bytes"),
}


@pytest.mark.parametrize("writer", ["app", "backend"])
@pytest.mark.parametrize("case", list(INVALID_CASES))
def test_each_limit_is_invalid_argument_and_changes_nothing(env, case, writer):
    values, unset, needle = INVALID_CASES[case]
    api, method = (env.a, "SetAttributes") if writer == "app" else (env.a_admin, "SetCustomerAttributes")
    user = unique_id()
    env.a.set_attributes(user, {"$displayName": "Keep", "$email": "keep@example.com", "$locale": "fr"})
    before = state(env.a_admin, user)
    # With a change that alone is allowed: the call is refused whole.
    alone = values and len(values) + len(unset) < 50 and all(k != "$phoneNumber" for k, _ in values)
    extra = [("$phoneNumber", "+15550100199")] if alone else []
    error = api.attribute_error(method, user, list(values) + extra, unset)
    assert error.code() == Code.INVALID_ARGUMENT, (error.code(), error.details())
    assert needle in error.details(), error.details()
    assert state(env.a_admin, user) == before
    # Nor is a customer created by a refused call.
    stranger = unique_id()
    assert api.attribute_error(method, stranger, values, unset).code() == Code.INVALID_ARGUMENT
    assert_not_found(env.a_admin, stranger)


def test_a_call_of_exactly_50_changes_passes(env):
    user = unique_id()
    keys = [f"k{i:02}" for i in range(50)]
    assert list(env.a_admin.set_customer_attributes(user, {k: "v" for k in keys}).changed_keys) == keys
    response = env.a_admin.set_customer_attributes(user, {k: "w" for k in keys[:25]}, unset=keys[25:])
    assert list(response.changed_keys) == keys and len(response.attributes) == 25


def test_a_customer_holds_at_most_50_keys(env):
    admin, user = env.a_admin, unique_id()
    admin.set_customer_attributes(user, {f"k{i:02}": "v" for i in range(49)})
    before = state(admin, user)
    # Adding two to 49 is refused whole, not one of them applied.
    error = admin.attribute_error("SetCustomerAttributes", user, {"k49": "v", "k50": "v"})
    assert error.code() == Code.INVALID_ARGUMENT
    assert "A customer has at most 50 attribute keys; this call would leave 51" in error.details()
    assert state(admin, user) == before
    assert len(admin.set_customer_attributes(user, {"k49": "v"}).attributes) == 50
    error = admin.attribute_error("SetCustomerAttributes", user, {"k50": "v"})
    assert error.code() == Code.INVALID_ARGUMENT and "would leave 51" in error.details()
    # At 50: a new value for a key, a key swapped for another, and removing keys all pass.
    assert list(admin.set_customer_attributes(user, {"k00": "w"}).changed_keys) == ["k00"]
    swapped = admin.set_customer_attributes(user, {"k50": "v"}, unset=["k01"])
    assert list(swapped.changed_keys) == ["k01", "k50"] and len(swapped.attributes) == 50
    assert len(admin.set_customer_attributes(user, unset=["k02"]).attributes) == 49


def _merged_over_the_limit(env) -> tuple[str, int]:
    """An identified customer left with 53 keys by a merge: 50 of its own, 3 of the anonymous customer's."""
    admin, user, anonymous = env.a_admin, unique_id(), anon_id()
    admin.set_customer_attributes(user, {f"k{i:02}": "v" for i in range(50)})
    admin.set_customer_attributes(anonymous, {"a1": "x", "a2": "y", "k00": "anon"})
    env.a.set_attributes(anonymous, {"$email": "merged@example.com"})
    assert env.a.identify(user, anonymous_id=anonymous).merged
    attributes = admin.attributes(user)
    assert len(attributes) == 53 and ("k00", "v") in attributes
    return user, 53


def test_after_a_merge_left_more_than_50_keys_calls_that_add_none_pass(env):
    admin = env.a_admin
    user, count = _merged_over_the_limit(env)
    before = state(admin, user)
    error = admin.attribute_error("SetCustomerAttributes", user, {"k50": "v"})
    assert error.code() == Code.INVALID_ARGUMENT and "would leave 54" in error.details()
    assert state(admin, user) == before
    assert list(admin.set_customer_attributes(user, {"a1": "changed"}).changed_keys) == ["a1"]
    assert len(admin.set_customer_attributes(user, unset=["a2"]).attributes) == count - 1


def test_after_a_merge_left_more_than_50_keys_a_swap_adding_a_key_is_refused(env):
    admin = env.a_admin
    user, count = _merged_over_the_limit(env)
    before = state(admin, user)
    error = admin.attribute_error("SetCustomerAttributes", user, {"k50": "v"}, unset=["a1"])
    assert error.code() == Code.INVALID_ARGUMENT and "at most 50 attribute keys" in error.details()
    assert state(admin, user) == before


# --------------------------------------------------------------------------------------------------
# Changes: events, streams, no-ops


def test_a_change_is_an_attributes_event_and_a_customer_info_changed_stream_event(env, tenants):
    user = unique_id()
    env.a_admin.grant(user, "pro")
    stream = env.a.stream(user)
    snapshot = stream.next()
    assert snapshot.kind == SNAPSHOT and snapshot.customer.version == 2
    response = env.a_admin.set_customer_attributes(user, {"plan": "gold", "$email": "ev@example.com"})
    assert list(response.changed_keys) == ["$email", "plan"]
    event = stream.next()
    assert (event.kind, event.customer.version, event.customer.app_user_id) == (CUSTOMER_INFO_CHANGED, 3, user)
    assert active_ids(event.customer) == ["pro"]
    assert event.reason == "Attributes changed: $email, plan."
    newest = env.a_admin.all_events(user)[0]
    assert (newest.version, newest.cause, newest.change) == (3, ATTRIBUTES, CUSTOMER_INFO_CHANGED)
    assert newest.reason == "Attributes changed: $email, plan."
    assert [e.id for e in newest.status.entitlements] == ["pro"]
    assert newest.key_name == key_hash(tenants["a"].secret_key)[:len("sk_sha256:") + 8]
    # Removing is a change too; the status stays.
    env.a.set_attributes(user, unset=["$email"])
    event = stream.next()
    assert (event.kind, event.customer.version) == (CUSTOMER_INFO_CHANGED, 4)
    assert event.reason == "Attributes changed: $email."
    assert env.a_admin.all_events(user)[0].reason == "Attributes changed: $email."
    synced = env.a.sync(user)
    assert synced.version == 4 and active_ids(synced) == ["pro"]


def test_a_call_that_changes_nothing_records_nothing(env):
    user = unique_id()
    env.a.set_attributes(user, {"$phoneNumber": "+15550100199", "$locale": "pt-BR", "$email": "same@example.com"})
    stream = env.a.stream(user)
    assert stream.next().customer.version == 2
    before = state(env.a_admin, user)
    # The same values as stored, however written, and removing keys the customer lacks.
    again = env.a.set_attributes(
        user, {"$phoneNumber": "+1 555-010-0199", "$locale": "pt_br", "$email": "same@example.com"},
        unset=["$displayName"])
    assert list(again.changed_keys) == [] and again.app_user_id == user
    assert with_times(again.attributes) == before[0]
    nothing = env.a_admin.set_customer_attributes(user, unset=["never-set", "$displayName"])
    assert list(nothing.changed_keys) == []
    assert state(env.a_admin, user) == before
    # An address in another case is a new value (stored as given); the stream's next event is that one.
    changed = env.a.set_attributes(user, {"$email": "Same@Example.com"})
    assert list(changed.changed_keys) == ["$email"]
    assert stream.next().customer.version == 3
    deliveries = env.a_admin.call(
        "ListWebhookDeliveries", app_user_id=user, endpoint_id="all", page_size=500).deliveries
    assert sorted(d.version for d in deliveries) == [1, 2, 3]


def test_webhooks_carry_the_changed_keys_and_the_values_after(env, receivers):
    user = unique_id()
    env.a_admin.grant(user, "pro")  # 1 created, 2 grant
    env.a_admin.set_customer_attributes(user, {"plan": "gold", "$email": "hook@example.com"})  # 3
    env.a.set_attributes(user, {"$locale": "de_de"}, unset=["$email"])  # 4
    env.a_admin.set_customer_attributes(user, {"plan": "gold"})  # nothing
    env.a_admin.grant(user, "premium")  # 5
    # The outbox, written with each event: what each endpoint asked for.
    logged = env.a_admin.call("ListWebhookDeliveries", app_user_id=user, page_size=500).deliveries
    by_endpoint = {}
    for delivery in logged:
        by_endpoint.setdefault(delivery.endpoint_id, []).append((delivery.version, delivery.type))
    assert {name: sorted(listed) for name, listed in by_endpoint.items()} == {
        "all": [(1, "customer.customer_info_changed"), (2, "customer.grant"), (3, "customer.attributes_changed"),
                (4, "customer.attributes_changed"), (5, "customer.grant")],
        "attrs": [(3, "customer.attributes_changed"), (4, "customer.attributes_changed")],
        "grants": [(2, "customer.grant"), (5, "customer.grant")],
    }
    bodies = wait_about(receivers["all"], user, 5)
    third, fourth = (next(b for b in bodies if b["data"]["version"] == v) for v in (3, 4))
    for body in (third, fourth):
        data = body["data"]
        assert body["type"] == "customer.attributes_changed"
        assert data["kind"] == "customer_info_changed" and data["cause"] == "attributes"
        assert "customer_info_changed" in data["event_kinds"] and "attributes_changed" in data["event_kinds"]
        assert data["tenant"] == "attr-a" and data["app_user_id"] == user
        assert [e["id"] for e in data["status"]["entitlements"]] == ["pro"]
    assert third["data"]["reason"] == "Attributes changed: $email, plan."
    assert third["data"]["attributes"] == {
        "changed_keys": ["$email", "plan"], "values": {"$email": "hook@example.com", "plan": "gold"}}
    assert fourth["data"]["reason"] == "Attributes changed: $email, $locale."
    assert fourth["data"]["attributes"] == {
        "changed_keys": ["$email", "$locale"], "values": {"$locale": "de-DE", "plan": "gold"}}
    signed = [d for d in receivers["all"].deliveries if d.json["data"]["app_user_id"] == user]
    assert all(d.verified_with == [0] for d in signed)
    # The endpoint that wants attribute changes only gets these two, the same events.
    only = wait_about(receivers["attrs"], user, 2)
    assert sorted(b["data"]["event_id"] for b in only) == sorted(b["data"]["event_id"] for b in (third, fourth))
    assert [b["type"] for b in wait_about(receivers["grants"], user, 2)] == ["customer.grant"] * 2


def about(receiver: Receiver, user: str) -> list[dict]:
    return [body for body in receiver.bodies() if body["data"]["app_user_id"] == user]


def wait_about(receiver: Receiver, user: str, count: int, timeout: float = 20.0) -> list[dict]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        bodies = about(receiver, user)
        if len(bodies) >= count:
            return bodies
        time.sleep(0.02)
    pytest.fail(f"{len(about(receiver, user))} deliveries about {user} arrived, expected {count}")


# --------------------------------------------------------------------------------------------------
# Aliases and merges


def test_the_app_may_not_write_through_an_alias_the_backend_may(env):
    anonymous, user = anon_id(), unique_id()
    created = env.a.set_attributes(anonymous, {"$locale": "fr"})  # an anonymous customer, canonical: allowed
    assert created.app_user_id == anonymous
    identified = env.a.identify(user, anonymous_id=anonymous)  # adopted: the anonymous ID is now an alias
    assert identified.merged and identified.customer.app_user_id == user
    assert env.a_admin.attributes(user) == [("$locale", "fr")]
    before = state(env.a_admin, user)
    error = env.a.attribute_error("SetAttributes", anonymous, {"$email": "alias@example.com"})
    assert error.code() == Code.PERMISSION_DENIED
    assert "is an alias of another user's ID" in error.details()
    assert state(env.a_admin, user) == before
    # The backend names the customer by any of its IDs; the answer names the canonical one and lists every key.
    response = env.a_admin.set_customer_attributes(anonymous, {"crm_id": "7"})
    assert response.app_user_id == user and list(response.changed_keys) == ["crm_id"]
    assert pairs(response.attributes) == [("$locale", "fr"), ("crm_id", "7")]
    assert env.a.set_attributes(user, {"$email": "alias@example.com"}).app_user_id == user


def test_a_merge_moves_the_anonymous_customers_keys_the_identified_one_lacks(env):
    user, anonymous = unique_id(), anon_id()
    env.a_admin.set_customer_attributes(user, {"$email": f"{user}@example.com", "plan": "gold"})
    env.a.set_attributes(anonymous, {"$email": f"anon-{user}@example.com", "$locale": "fr_fr"})
    env.a_admin.set_customer_attributes(anonymous, {"anon_only": "1", "plan": "free"})
    own = {a.key: a for a in env.a_admin.customer(user).attributes}
    theirs = {a.key: a for a in env.a_admin.customer(anonymous).attributes}
    assert env.a.identify(user, anonymous_id=anonymous).merged
    merged = env.a_admin.customer(user)
    assert pairs(merged.attributes) == [
        ("$email", f"{user}@example.com"), ("$locale", "fr-FR"), ("anon_only", "1"), ("plan", "gold")]
    times = {a.key: (a.updated_at.seconds, a.updated_at.nanos) for a in merged.attributes}
    assert times["$email"] == (own["$email"].updated_at.seconds, own["$email"].updated_at.nanos)
    assert times["$locale"] == (theirs["$locale"].updated_at.seconds, theirs["$locale"].updated_at.nanos)
    # The anonymous ID names the survivor now; the anonymous customer's address (which lost) finds nobody.
    assert pairs(env.a_admin.customer(anonymous).attributes) == pairs(merged.attributes)
    assert env.a_admin.found(f"anon-{user}@example.com") == []
    assert env.a_admin.found(f"{user}@example.com") == [(user, EMAIL, 0, "")]
    assert env.a.attribute_error("SetAttributes", anonymous, {"$locale": "de"}).code() == Code.PERMISSION_DENIED


# --------------------------------------------------------------------------------------------------
# FindCustomers by $email


def test_find_customers_by_email_after_ids_and_before_purchases(env, fake):
    address = f"ana@{unique_id('d')}.example.com"
    # A customer whose app user ID is the address itself.
    env.play.identify(address)
    # Two whose $email is the address in another case, one of them an adopted anonymous customer.
    by_email = unique_id()
    env.play_admin.set_customer_attributes(by_email, {"$email": address.upper()})
    anonymous, adopted = anon_id(), unique_id()
    env.play.set_attributes(anonymous, {"$email": address})
    env.play.identify(adopted, anonymous_id=anonymous)
    # One whose other attribute holds it (not $email), and a purchase whose order ID is the address.
    env.play_admin.set_customer_attributes(unique_id(), {"backup_email": address})
    buyer, token = unique_id(), f"tok{unique_id('t')}"
    fake.put_product(APP, token, product_id=LIFETIME, order_id=address)
    env.play.play_purchase(buyer, LIFETIME, token)
    matches = env.play_admin.found(address)
    assert matches[0] == (address, APP_USER_ID, 0, "")
    assert sorted(matches[1:3]) == sorted([(by_email, EMAIL, 0, ""), (adopted, EMAIL, 0, "")])
    assert matches[3:] == [(buyer, TRANSACTION_ID, PLAY_STORE, token)]
    # Ignoring case: only the addresses match then.
    assert sorted(env.play_admin.found(address.upper().replace("ANA@", "aNa@"))) == sorted(
        [(by_email, EMAIL, 0, ""), (adopted, EMAIL, 0, "")])
    # Another tenant finds none of them.
    assert env.a_admin.found(address) == []
    # A customer whose ID and $email are the same address is listed once, by its ID.
    env.play.set_attributes(address, {"$email": address})
    assert [m for m in env.play_admin.found(address) if m[0] == address] == [(address, APP_USER_ID, 0, "")]


def test_find_customers_by_email_follows_changes_and_folds_non_ascii_case(env):
    user, address = unique_id(), f"JÖRG.{unique_id('x')}@Bücher.DE"
    env.a.set_attributes(user, {"$email": address})
    reader = env.api(READER)
    assert reader.found(address.lower()) == [(user, EMAIL, 0, "")]
    assert reader.found(address) == [(user, EMAIL, 0, "")]
    new = f"new-{user}@example.com"
    env.a.set_attributes(user, {"$email": new})
    assert reader.found(address) == [] and reader.found(new.upper()) == [(user, EMAIL, 0, "")]
    env.a_admin.set_customer_attributes(user, unset=["$email"])
    assert reader.found(new) == []


# --------------------------------------------------------------------------------------------------
# Tenant isolation


def test_tenants_never_see_or_touch_each_others_attributes(env):
    user = unique_id()
    mine, theirs = f"a-{user}@example.com", f"b-{user}@example.com"
    env.a_admin.set_customer_attributes(user, {"$email": mine, "plan": "gold"})
    a_before = state(env.a_admin, user)
    # Tenant b does not know the user...
    assert_not_found(env.b_admin, user)
    assert env.b_admin.found(mine) == []
    # ... and the same ID there is a customer of its own.
    response = env.b.set_attributes(user, {"$email": theirs})
    assert list(response.changed_keys) == ["$email"] and pairs(response.attributes) == [("$email", theirs)]
    assert env.b_admin.customer(user).customer.version == 2
    nothing = env.b_admin.set_customer_attributes(user, unset=["plan"])
    assert list(nothing.changed_keys) == [] and pairs(nothing.attributes) == [("$email", theirs)]
    assert env.b_admin.found(theirs) == [(user, EMAIL, 0, "")] and env.b_admin.found(mine) == []
    assert env.a_admin.found(theirs) == [] and env.a_admin.found(mine) == [(user, EMAIL, 0, "")]
    assert state(env.a_admin, user) == a_before
    assert env.a_admin.attributes(user) == [("$email", mine), ("plan", "gold")]
    # Tenant a's endpoints were told of a's changes only.
    logged = env.a_admin.call("ListWebhookDeliveries", app_user_id=user, endpoint_id="all", page_size=500).deliveries
    assert sorted(d.version for d in logged) == [1, 2]


# --------------------------------------------------------------------------------------------------
# The tenants file


def check_config(tmp_path, attributes) -> subprocess.CompletedProcess:
    """`check-config` on a configuration whose one tenant has `attributes` as its "attributes"."""
    tenants = tmp_path / "tenants.json"
    write_tenants(tenants, [new_tenant("attr-config", attributes=attributes)])
    config = tmp_path / "check.toml"
    database = tmp_path / "entitlements.db"
    config.write_text(
        f'[server]\nlisten = "127.0.0.1:0"\n\n[storage]\ndatabase = "{database}"\ntenants = "{tenants}"\n')
    return subprocess.run([str(server_binary()), "check-config", "--config", str(config)], capture_output=True,
                          text=True, timeout=RPC_TIMEOUT)


@pytest.mark.parametrize("attributes", [
    {"app_keys": [], "backend_keys": []},
    {"app_keys": ["$email", "nickname"], "backend_keys": ["plan", "crm.id-2"], "_comment": "who writes what"},
    {"backend_keys": [f"k{i}" for i in range(50)]},
], ids=["empty lists", "both lists", "50 keys"])
def test_the_tenants_file_takes_attribute_settings(tmp_path, attributes):
    result = check_config(tmp_path, attributes)
    assert result.returncode == 0, result.stderr
    assert "load as the server would load them" in result.stdout


@pytest.mark.parametrize("attributes, needle", [
    ({"app_keys": ["$email", "$email"]}, 'tenants[0].attributes.app_keys[1]: "$email" is listed twice'),
    ({"backend_keys": ["plan", "bad key"]}, "tenants[0].attributes.backend_keys[1]: key 'bad key' is not a letter"),
    ({"app_keys": ["$name"]}, "tenants[0].attributes.app_keys[0]: key '$name' starts with $"),
    ({"backend_keys": ["k" * 41]}, "tenants[0].attributes.backend_keys[0]: key is 41 bytes"),
    ({"app_keys": [""]}, "tenants[0].attributes.app_keys[0]: an attribute key is empty"),
    ({"backend_keys": [f"k{i}" for i in range(51)]}, "tenants[0].attributes.backend_keys: expected at most 50 keys"),
    ({"app_keys": "$email"}, "tenants[0].attributes.app_keys: expected an array"),
    ({"colour": "blue"}, 'tenants[0].attributes.colour: unknown field "colour" in "attributes"'),
    ([], "tenants[0].attributes"),
], ids=["duplicate", "bad syntax", "unknown $ key", "41 bytes", "empty key", "51 keys", "not a list",
        "unknown field", "not an object"])
def test_the_tenants_file_refuses_bad_attribute_settings(tmp_path, attributes, needle):
    result = check_config(tmp_path, attributes)
    assert result.returncode != 0
    assert needle in result.stderr, result.stderr

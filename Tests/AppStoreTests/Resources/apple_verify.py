"""Verifies tokens with Apple's own app-store-server-library, for AppStoreTests' differential test.

Usage: apple_verify.py <cases.json>
cases.json: {"roots": {"<name>": "<path to DER>"}, "cases": [{"name", "kind", "token", "environment",
             "bundle_id", "app_apple_id", "roots": ["<name>", ...]}]}
Prints {"<case name>": {"accepted": bool, "status": "<VerificationStatus or exception>"}} on stdout.
"""
import json
import sys

try:
    from appstoreserverlibrary.models.Environment import Environment
    from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier, VerificationException
except ImportError as error:
    sys.stderr.write(
        "Apple's app-store-server-library is not installed in %s (%s). Install it with "
        "`pip install -r Tests/Interop/requirements.txt` into .venv, or point ENTITLEMENTD_PYTHON at an "
        "interpreter that has it.\n" % (sys.executable, error)
    )
    sys.exit(3)

KINDS = {
    "transaction": "verify_and_decode_signed_transaction",
    "renewalInfo": "verify_and_decode_renewal_info",
    "notification": "verify_and_decode_notification",
    "appTransaction": "verify_and_decode_app_transaction",
}


def main():
    with open(sys.argv[1]) as handle:
        spec = json.load(handle)
    roots = {}
    for name, path in spec["roots"].items():
        with open(path, "rb") as handle:
            roots[name] = handle.read()
    results = {}
    for case in spec["cases"]:
        verifier = SignedDataVerifier(
            root_certificates=[roots[name] for name in case["roots"]],
            enable_online_checks=False,
            environment=Environment(case["environment"]),
            bundle_id=case["bundle_id"],
            app_apple_id=case.get("app_apple_id"),
        )
        try:
            getattr(verifier, KINDS[case["kind"]])(case["token"])
            results[case["name"]] = {"accepted": True, "status": "OK"}
        except VerificationException as error:
            cause = error.__cause__
            detail = "%s (%s: %s)" % (error.status.name, type(cause).__name__, cause) if cause else error.status.name
            results[case["name"]] = {"accepted": False, "status": detail}
        except Exception as error:  # cattrs/attrs rejecting a payload is a rejection too
            results[case["name"]] = {"accepted": False, "status": "%s: %s" % (type(error).__name__, error)}
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()

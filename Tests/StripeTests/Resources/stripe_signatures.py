"""Stripe's own Python library (stripe-python) as the reference for StripeSignatureTests.

    stripe_signatures.py sign CASES.json      -> one header per case: {"body", "secret", "timestamp"}
    stripe_signatures.py verify CASES.json    -> "ok" or the library's error per case: {"body", "header", "secret",
                                                 "tolerance"}
Bodies are UTF-8 text (stripe-python verifies the decoded body). Prints a JSON list.
"""

import json
import sys
import time

import stripe


def main() -> None:
    mode, path = sys.argv[1], sys.argv[2]
    cases = json.load(open(path))
    results = []
    for case in cases:
        if mode == "sign":
            results.append(stripe.WebhookSignature.generate_signature_header(
                case["body"], case["secret"], timestamp=case["timestamp"]))
        else:
            try:
                stripe.WebhookSignature.verify_header(
                    case["body"], case["header"], case["secret"], tolerance=case["tolerance"])
                results.append("ok")
            except stripe.SignatureVerificationError as error:
                results.append(f"refused: {error.user_message}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()

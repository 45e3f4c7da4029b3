"""The Standard Webhooks reference library (Python `standardwebhooks`) as the reference for StandardWebhooksTests.

    standard_webhooks.py verify CASES.json  -> "ok" or "refused: <error>" per case: {"secret", "id", "timestamp",
                                               "signature", "body"} (timestamp a string, as the header)
    standard_webhooks.py sign CASES.json    -> the `webhook-signature` the library makes per case: {"secret", "id",
                                               "timestamp", "body"} (timestamp Unix seconds)
    standard_webhooks.py secret CASES.json  -> "ok" or "refused: <error type>" per case: {"secret"}; whether
                                               `Webhook(secret)` takes it
Bodies are UTF-8 text (the library verifies and signs the decoded body). Prints a JSON list.
"""

import json
import sys
from datetime import datetime, timezone

from standardwebhooks import Webhook, WebhookVerificationError


def main() -> None:
    mode, path = sys.argv[1], sys.argv[2]
    cases = json.load(open(path))
    results = []
    for case in cases:
        if mode == "sign":
            timestamp = datetime.fromtimestamp(case["timestamp"], tz=timezone.utc)
            results.append(Webhook(case["secret"]).sign(case["id"], timestamp, case["body"]))
        elif mode == "verify":
            headers = {"webhook-id": case["id"], "webhook-timestamp": case["timestamp"],
                       "webhook-signature": case["signature"]}
            try:
                Webhook(case["secret"]).verify(case["body"].encode(), headers, json_parse=False)
                results.append("ok")
            except WebhookVerificationError as error:
                results.append(f"refused: {error}")
        elif mode == "secret":
            try:
                Webhook(case["secret"])
                results.append("ok")
            except Exception as error:  # binascii.Error, EmptyWebhookSecretError: the type is the answer
                results.append(f"refused: {type(error).__name__}")
        else:
            raise SystemExit(f"unknown mode {mode}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()

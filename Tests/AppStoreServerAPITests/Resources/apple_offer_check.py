"""Apple's side of Tests/AppStoreServerAPITests/OfferSignaturesTests: checks the offer signatures entitlementd makes
against what Apple's own app-store-server-library makes for the same inputs.

    apple_offer_check.py promotional KEY_PEM KEY_ID BUNDLE_ID PRODUCT OFFER TOKEN NONCE TIMESTAMP SIGNATURE
        verifies SIGNATURE (base64 DER) with the public half of KEY_PEM over the payload the library's
        PromotionalOfferSignatureCreator signs for these inputs
    apple_offer_check.py promotional-jws KEY_PEM KEY_ID ISSUER BUNDLE_ID PRODUCT OFFER TRANSACTION_ID|- JWS
    apple_offer_check.py eligibility-jws KEY_PEM KEY_ID ISSUER BUNDLE_ID PRODUCT true|false TRANSACTION_ID JWS
        verifies JWS (ES256, its audience) and compares its header and claims with the library's JWS for the same
        inputs: the same names, the same JSON types, the same values but for `iat` and `nonce` (fresh in each)

Prints {"valid": true, "header": {...}, "claims": {...}} or {"valid": false, "error": "..."}.
"""

import base64
import json
import sys
import uuid

import jwt
from appstoreserverlibrary.jws_signature_creator import (
    IntroductoryOfferEligibilitySignatureCreator, PromotionalOfferV2SignatureCreator)
from appstoreserverlibrary.promotional_offer import PromotionalOfferSignatureCreator
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import ECDSA
from cryptography.hazmat.primitives.hashes import SHA256


class PayloadCapture:
    """Stands in for the library's signing key to read the payload it would sign."""

    def __init__(self):
        self.payload = None

    def sign(self, payload, algorithm):
        self.payload = payload
        return b""


def library_payload(key_pem: bytes, key_id, bundle_id, product, offer, token, nonce, timestamp) -> bytes:
    creator = PromotionalOfferSignatureCreator(key_pem, key_id, bundle_id)
    capture = PayloadCapture()
    creator._signing_key = capture
    creator.create_signature(product, offer, token, uuid.UUID(nonce), int(timestamp))
    return capture.payload


def json_type(value) -> str:
    return type(value).__name__


def compare_jws(ours: str, theirs: str, public_key, audience: str) -> dict:
    claims = jwt.decode(ours, public_key, algorithms=["ES256"], audience=audience)
    header = jwt.get_unverified_header(ours)
    library_header = jwt.get_unverified_header(theirs)
    library_claims = jwt.decode(theirs, options={"verify_signature": False})
    if header != library_header:
        raise ValueError(f"header {header} is not the library's {library_header}")
    if {k: json_type(v) for k, v in claims.items()} != {k: json_type(v) for k, v in library_claims.items()}:
        raise ValueError(f"claims {claims} do not have the names and types of the library's {library_claims}")
    fresh = {"iat", "nonce"}
    if {k: v for k, v in claims.items() if k not in fresh} != {k: v for k, v in library_claims.items() if k not in fresh}:
        raise ValueError(f"claims {claims} differ from the library's {library_claims}")
    uuid.UUID(claims["nonce"])
    if claims["nonce"] != claims["nonce"].lower():
        raise ValueError(f"nonce {claims['nonce']} is not lowercase")
    return {"valid": True, "header": header, "claims": claims}


def main() -> None:
    mode, key_path = sys.argv[1:3]
    key_pem = open(key_path, "rb").read()
    public_key = serialization.load_pem_private_key(key_pem, password=None).public_key()
    try:
        if mode == "promotional":
            key_id, bundle_id, product, offer, token, nonce, timestamp, signature = sys.argv[3:11]
            payload = library_payload(key_pem, key_id, bundle_id, product, offer, token, nonce, timestamp)
            public_key.verify(base64.b64decode(signature, validate=True), payload, ECDSA(SHA256()))
            verdict = {"valid": True}
        elif mode == "promotional-jws":
            key_id, issuer, bundle_id, product, offer, transaction_id, token = sys.argv[3:10]
            creator = PromotionalOfferV2SignatureCreator(key_pem, key_id, issuer, bundle_id)
            theirs = creator.create_signature(product, offer, None if transaction_id == "-" else transaction_id)
            verdict = compare_jws(token, theirs, public_key, "promotional-offer")
        elif mode == "eligibility-jws":
            key_id, issuer, bundle_id, product, allowed, transaction_id, token = sys.argv[3:10]
            creator = IntroductoryOfferEligibilitySignatureCreator(key_pem, key_id, issuer, bundle_id)
            theirs = creator.create_signature(product, allowed == "true", transaction_id)
            verdict = compare_jws(token, theirs, public_key, "introductory-offer-eligibility")
        else:
            raise SystemExit(f"unknown mode {mode}")
    except (jwt.PyJWTError, InvalidSignature, ValueError) as error:
        verdict = {"valid": False, "error": f"{type(error).__name__}: {error}"}
    print(json.dumps(verdict))


if __name__ == "__main__":
    main()

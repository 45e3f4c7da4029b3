"""PyJWT's side of Tests/AppStoreServerAPITests: checks an App Store Server API bearer token the way Apple documents
it, with an independent library: ES256 over the key's public half, header `kid` and `typ` JWT, claims `iss`, `iat`,
`exp` (at most 60 minutes after `iat`), `aud` appstoreconnect-v1 and `bid`.

    apple_token_check.py KEY_PEM KID ISSUER BUNDLE_ID TOKEN
        checks TOKEN with the public half of the private key in KEY_PEM (a .p8 file); prints {"valid": true, "claims": {...}} or {"valid": false, "error": "..."}
"""

import json
import sys

import jwt
from cryptography.hazmat.primitives import serialization


def main() -> None:
    key_pem, kid, issuer, bundle_id, token = sys.argv[1:6]
    public_key = serialization.load_pem_private_key(open(key_pem, "rb").read(), password=None).public_key()
    try:
        header = jwt.get_unverified_header(token)
        if header.get("kid") != kid or header.get("typ") != "JWT" or header.get("alg") != "ES256":
            raise ValueError(f"header {header}")
        claims = jwt.decode(token, public_key, algorithms=["ES256"], audience="appstoreconnect-v1",
                            issuer=issuer, options={"require": ["iss", "iat", "exp", "aud", "bid"]})
        if claims["bid"] != bundle_id:
            raise ValueError(f"bid {claims['bid']}")
        if not 0 < claims["exp"] - claims["iat"] <= 3600:
            raise ValueError(f"lifetime {claims['exp'] - claims['iat']} s")
        print(json.dumps({"valid": True, "claims": claims}))
    except (jwt.PyJWTError, ValueError) as error:
        print(json.dumps({"valid": False, "error": f"{type(error).__name__}: {error}"}))


if __name__ == "__main__":
    main()

"""PyJWT's side of Tests/GooglePlayAPITests: Google's tokens checked and made by an independent library.

    pyjwt_google.py verify-assertion DIR   reads DIR/public.pem (the service account's key), DIR/assertion (the JWT
                                           sent to the token endpoint) and DIR/audience, and prints
                                           {"header": {...}, "claims": {...}}: PyJWT's decode with RS256 only, the
                                           audience required, and iss, aud, iat, exp required; exits 1 with PyJWT's
                                           error otherwise
    pyjwt_google.py mint-push DIR          reads DIR/claims.json, makes a 2048-bit RSA key with `cryptography`, and
                                           writes DIR/jwks.json (PyJWT's JWK of it, kid "pyjwt-push") and DIR/token (RS256,
                                           kid and typ JWT in the header): a Pub/Sub push token as Google signs it
"""

import json
import sys
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

PUSH_KID = "pyjwt-push"


def verify_assertion(directory: Path) -> None:
    key = serialization.load_pem_public_key((directory / "public.pem").read_bytes())
    token = (directory / "assertion").read_text()
    try:
        claims = jwt.decode(
            token,
            key,
            algorithms=["RS256"],
            audience=(directory / "audience").read_text(),
            options={"require": ["iss", "aud", "iat", "exp"]},
        )
    except jwt.PyJWTError as error:
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps({"header": jwt.get_unverified_header(token), "claims": claims}))


def mint_push(directory: Path) -> None:
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(RSAAlgorithm.to_jwk(private_key.public_key()))
    jwk.update(kid=PUSH_KID, use="sig", alg="RS256")
    (directory / "jwks.json").write_text(json.dumps({"keys": [jwk]}))
    claims = json.loads((directory / "claims.json").read_text())
    token = jwt.encode(claims, private_key, algorithm="RS256", headers={"kid": PUSH_KID, "typ": "JWT"})
    (directory / "token").write_text(token)


if __name__ == "__main__":
    command, directory = sys.argv[1], Path(sys.argv[2])
    {"verify-assertion": verify_assertion, "mint-push": mint_push}[command](directory)

"""PyJWT's side of Tests/JOSETests/PyJWTTests.swift: RS256 tokens and key sets checked by an independent library.

    pyjwt_rs256.py verify DIR   reads DIR/jwks.json and DIR/tokens.json (a JSON list of compact JWS) and prints a JSON
                                list with, for each token, {"valid": true, "claims": {...}} or {"valid": false,
                                "error": "..."}: PyJWT's verdict with the key the token's kid names
    pyjwt_rs256.py sign DIR     makes a 2048-bit RSA key with `cryptography` and writes DIR/jwks.json (PyJWT's JWK of
                                it, with kid, use and alg), DIR/public.pem and DIR/token (RS256, kid in the header,
                                the claims below); prints nothing
"""

import json
import sys
from pathlib import Path

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

KID = "pyjwt-key"
CLAIMS = {"iss": "pyjwt", "sub": "differential", "n": 42}


def verify(directory: Path) -> None:
    key_set = jwt.PyJWKSet.from_json((directory / "jwks.json").read_text())
    results = []
    for token in json.loads((directory / "tokens.json").read_text()):
        try:
            kid = jwt.get_unverified_header(token)["kid"]
            claims = jwt.decode(token, key_set[kid], algorithms=["RS256"])
            results.append({"valid": True, "claims": claims})
        except (jwt.PyJWTError, KeyError) as error:
            results.append({"valid": False, "error": f"{type(error).__name__}: {error}"})
    print(json.dumps(results))


def sign(directory: Path) -> None:
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(RSAAlgorithm.to_jwk(private_key.public_key()))
    jwk.update(kid=KID, use="sig", alg="RS256")
    (directory / "jwks.json").write_text(json.dumps({"keys": [jwk]}))
    public_pem = private_key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    (directory / "public.pem").write_bytes(public_pem)
    (directory / "token").write_text(jwt.encode(CLAIMS, private_key, algorithm="RS256", headers={"kid": KID}))


if __name__ == "__main__":
    command, directory = sys.argv[1], Path(sys.argv[2])
    {"verify": verify, "sign": sign}[command](directory)

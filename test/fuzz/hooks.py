"""Schemathesis hooks for `make fuzz` (test/fuzz/run.ts writes FUZZ_CONTEXT).

They get generated requests past authentication: each operation's `security` names the schemes
it accepts; bearer schemes get the seeded tokens, and signed operations (`x-signed-action`) get an
envelope from our own signing code through a loopback service, so a fuzzed body is signed exactly
as a client would sign it. Half the time, path parameters are replaced by real ids so requests
reach records, not only 404s.
"""

import json
import os
import zlib
import urllib.error
import urllib.request

import schemathesis

# 5xx answers that are documented and say "retry": a dependency too slow or a vendor failing under the
# load of a whole test run beside the fuzzer. Any other 5xx (above all 500 internal_error) is a finding.
RETRYABLE_5XX = {
    (503, "store_unavailable"),
    (503, "workflow_engine_unavailable"),
    (503, "session_unavailable"),
    (503, "chain_unavailable"),
    (502, "vendor_error"),
    (504, "vendor_timeout"),
}

CONTEXT = json.load(open(os.environ["FUZZ_CONTEXT"]))
TOKENS = CONTEXT["tokens"]
BEARERS = {
    "accessToken": TOKENS.get("act"),
    "agentGroupToken": TOKENS.get("agt"),
    "budgetBearer": TOKENS.get("budget"),
    "operatorToken": TOKENS.get("operator"),
    "embedToken": TOKENS.get("embed"),
}

ALWAYS_REAL = {"bundleId"}


def _fresh_token():
    request = urllib.request.Request(CONTEXT["signer_url"] + "/token", data=b"", method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)["token"]


def _sign(action, path_parameters, body):
    request = urllib.request.Request(
        CONTEXT["signer_url"] + "/sign",
        data=json.dumps({"action": action, "path_parameters": path_parameters, "body": body}).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.load(answer)
    except urllib.error.HTTPError:
        return None  # not signable (a '/' in an id): sent unsigned, refused by the API


@schemathesis.hook
def map_path_parameters(ctx, path_parameters):
    if path_parameters:
        for name in list(path_parameters):
            # Half the generated values (by their checksum, so a case replays alike) become the real id;
            # a bundle id always does, since the widget token only opens its own bundle.
            if name in CONTEXT["ids"] and (name in ALWAYS_REAL or zlib.crc32(str(path_parameters[name]).encode()) % 2 == 0):
                path_parameters[name] = CONTEXT["ids"][name]
    return path_parameters


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    definition = case.operation.definition.raw
    schemes = [name for requirement in definition.get("security", []) for name in requirement]
    headers = case.headers if case.headers is not None else {}
    # A request that revokes the token it carries gets a token of its own, so the seeded one lives on.
    revokes_own = case.method.upper() == "DELETE" and case.operation.path.endswith("/auth/token")
    for name in schemes:
        token = _fresh_token() if revokes_own and name == "accessToken" else BEARERS.get(name)
        if token:
            for key in [k for k in headers if k.lower() == "authorization"]:
                del headers[key]
            headers["Authorization"] = f"Bearer {token}"
            break
    case.headers = headers
    signed = definition.get("x-signed-action")
    if signed and isinstance(case.body, dict):
        envelope = _sign(signed["action"], case.path_parameters or {}, case.body)
        if envelope:
            case.body.update(envelope)


def _error_code(response):
    try:
        body = response.json()
    except Exception:
        return None
    if not isinstance(body, dict):
        return None
    for key in ("code", "error_code", "error"):
        if isinstance(body.get(key), str):
            return body[key]
    return None


@schemathesis.check
def no_internal_error(ctx, response, case):
    """schemathesis' not_a_server_error, except documented retry-later answers (RETRYABLE_5XX)."""
    if response.status_code < 500 or (response.status_code, _error_code(response)) in RETRYABLE_5XX:
        return None
    raise AssertionError(f"server error {response.status_code} ({_error_code(response) or 'no error code'})")

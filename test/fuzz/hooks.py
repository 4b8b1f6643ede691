"""Schemathesis hooks for `make fuzz` (test/fuzz/run.ts writes FUZZ_CONTEXT).

They get generated requests past authentication: each operation's `security` names the schemes
it accepts; bearer schemes get the seeded tokens, and signed operations (`x-signed-action`) get an
envelope from our own signing code through a loopback service, so a fuzzed body is signed exactly
as a client would sign it. Half the time, path parameters are replaced by real ids so requests
reach records, not only 404s. `unserved_methods_refused` sends each path's first case again under
every method the document does not give the path (405 with Allow expected), so every run, the
bounded one in `make test` included, covers the methods of every path (/mcp's among them).
"""

import json
import os
import threading
import zlib
import urllib.error
import urllib.parse
import urllib.request

import requests
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


# The methods probed on every path: all a client may send that OpenAPI or HTTP name, but OPTIONS (express
# answers it with the Allow list, 200) and CONNECT.
PROBED_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "TRACE", "QUERY")
DOCUMENTED = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
_probed = set()
_probed_lock = threading.Lock()


def _host_of(item):
    servers = item.get("servers") or []
    if len(servers) != 1:
        return "both"
    return "bearer" if "bearer host" in servers[0].get("description", "") else "main"


def _items_at(paths, sent_path, host):
    """The path items whose template the sent path falls under on this host (express tries every one)."""
    sent = sent_path.split("/")
    found = []
    for template, item in paths.items():
        parts = template.split("/")
        if len(parts) != len(sent) or _host_of(item) not in (host, "both"):
            continue
        if all((p.startswith("{") and p.endswith("}") and s != "") or p == s for p, s in zip(parts, sent)):
            found.append(item)
    return found


@schemathesis.check
def unserved_methods_refused(ctx, response, case):
    """A method the document does not give a path is 405 with an Allow header naming the ones it does,
    before anything else is looked at; on a path documented without a 405 (/health answers every
    method), at least no server error (issue 43: TRACE /mcp answered 500). Once per path: this case's
    request, sent again under each such method."""
    paths = case.operation.schema.raw_schema["paths"]
    own = paths[case.operation.path]
    host = "bearer" if _host_of(own) == "bearer" else "main"
    with _probed_lock:
        if (host, case.operation.path) in _probed:
            return None
        _probed.add((host, case.operation.path))
    request = response.request
    items = _items_at(paths, urllib.parse.urlsplit(request.url).path, host)
    # No template matches (an empty path parameter): the 404 of an unknown path, not this check's.
    if not items:
        return None
    refusing = all(
        any("405" in (op.get("responses") or {}) for m, op in item.items() if m in DOCUMENTED) for item in items
    )
    served = {m.upper() for item in items for m in item if m in DOCUMENTED}
    if "GET" in served:
        served.add("HEAD")
    refusal = next(op["responses"].get("405") or {} for m, op in own.items() if m in DOCUMENTED)
    headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
    problems = []
    for method in PROBED_METHODS:
        if method in served:
            continue
        answer = requests.request(method, request.url, headers=headers, data=request.body, timeout=30)
        allow = {m.strip() for m in answer.headers.get("allow", "").split(",") if m.strip()}
        media = answer.headers.get("content-type", "").split(";")[0].strip()
        if answer.status_code >= 500 or (refusing and answer.status_code != 405):
            problems.append(f"{method} answered {answer.status_code} {answer.text[:200]!r}, not 405")
        elif not refusing:
            continue
        elif allow != served:
            problems.append(f"{method}: Allow {answer.headers.get('allow')!r}, the document gives {', '.join(sorted(served))}")
        elif method != "HEAD" and media not in (refusal.get("content") or {}):
            problems.append(f"{method}: 405 answered {media or 'no content type'}, the document says {', '.join(refusal.get('content') or {})}")
    if problems:
        raise AssertionError(f"methods {case.operation.path} does not serve: " + "; ".join(problems))
    return None

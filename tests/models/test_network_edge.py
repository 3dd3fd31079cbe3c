"""The network edge of a model call, on both transports, against real loopback servers.

The proof matrix of issue 45: a forward proxy that must see the request (and must not under
``NO_PROXY``), a server answering gzip, a server sending an oversized answer (announced or
chunked), a TLS server with a self-signed certificate (refused by default, reached with
``ssl_verify=False`` and with its CA bundle). Every case runs on ``transport="direct"`` and
``transport="litellm"`` and expects the same outcome. Then what the direct path alone checks:
URL and header hygiene, redirects, the fast path's rule and its answers equal to httpx2's.
"""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import trustme

import tooleval_nb as te
from tests.models.netservers import Endpoint, ForwardProxy, Silent, proxies_cleared
from tooleval_nb.cli import build_parser
from tooleval_nb.cli.commands import params_of
from tooleval_nb.errors import ModelConfigError
from tooleval_nb.models import answer, client, embedded, litellm_transport
from tooleval_nb.models.endpoint import Network, check_headers
from tooleval_nb.models.retry import RetryPolicy
from tooleval_nb.models.spec import ModelSpec
from tooleval_nb.report import ReportParams
from tooleval_nb.report.suites import targets
from tooleval_nb.testing import FakeOpenAIServer

TRANSPORTS = ["direct", "litellm"]
ONCE = RetryPolicy(max_tries=1)
MiB = 1024 * 1024


def _call(api_base: str, transport: str, **fields: Any) -> te.ModelReply:
    spec = {"model": "openai/fake", "api_base": api_base, "transport": transport, **fields}
    return te.call_model(spec, "hi", cache=False, retry=ONCE)


@pytest.fixture(autouse=True)
def _no_proxy_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in proxies_cleared():
        monkeypatch.delenv(name, raising=False)
    for name in ("SSL_VERIFY", "SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> tuple[ssl.SSLContext, Path]:
    """A server context with a certificate for 127.0.0.1 from a fresh CA, and the CA's file."""
    ca = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(context)
    path = tmp_path_factory.mktemp("ca") / "ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return context, path


# the proof matrix: both transports, the same outcome


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_forward_proxy_sees_the_request_unless_no_proxy_names_the_host(
    transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Endpoint(text="through") as endpoint, ForwardProxy() as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        for _ in range(2):  # twice in one process: the second on the kept client
            assert _call(endpoint.api_base, transport).content == "through"
        assert proxy.seen == [f"{endpoint.api_base}/chat/completions"] * 2
        assert endpoint.seen == ["/v1/chat/completions"] * 2

        monkeypatch.setenv("NO_PROXY", "localhost,127.0.0.1")
        assert _call(endpoint.api_base, transport).content == "through"
        assert len(proxy.seen) == 2 and len(endpoint.seen) == 3  # straight to the endpoint


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_https_goes_through_the_proxys_tunnel_with_the_models_tls_settings(
    transport: str, tls: tuple[ssl.SSLContext, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    context, ca_file = tls
    with Endpoint(tls=context, text="tunnelled") as endpoint, ForwardProxy() as proxy:
        monkeypatch.setenv("HTTPS_PROXY", proxy.url)
        monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # for http only: never used
        for _ in range(2):
            reply = _call(endpoint.api_base, transport, ssl_verify=str(ca_file))
            assert reply.content == "tunnelled", reply.error
        assert proxy.seen and set(proxy.seen) == {f"CONNECT 127.0.0.1:{endpoint.port}"}
        with pytest.raises(ModelConfigError, match="could not be verified"):
            _call(endpoint.api_base, transport)  # through the tunnel, still verified
        tunnels = len(proxy.seen)
        monkeypatch.setenv("no_proxy", "127.0.0.1")
        assert _call(endpoint.api_base, transport, ssl_verify=False).content == "tunnelled"
        assert len(proxy.seen) == tunnels


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_proxy_that_is_down_fails_the_call_as_a_connection_error(
    transport: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ForwardProxy() as proxy:
        down = proxy.url
    with Endpoint() as endpoint:
        monkeypatch.setenv("HTTP_PROXY", down)
        reply = _call(endpoint.api_base, transport)
        assert reply.error_type == "ModelConnectionError", reply.error
        assert endpoint.seen == []


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_gzip_answer_is_decoded(transport: str) -> None:
    with Endpoint(gzip=True, text="unzipped") as endpoint:
        for _ in range(2):
            reply = _call(endpoint.api_base, transport)
            assert (reply.content, reply.error) == ("unzipped", None)
        assert all(
            h.get("accept-encoding", "").startswith("gzip, deflate") for h in endpoint.headers
        )


@pytest.mark.parametrize("chunked", [False, True], ids=["announced", "chunked"])
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_oversized_answer_is_refused_naming_the_setting_with_memory_bounded(
    transport: str, chunked: bool
) -> None:
    with Endpoint(oversized=64 * MiB, chunked=chunked) as endpoint:
        reply = _call(endpoint.api_base, transport, max_response_bytes=MiB)
        assert reply.error_type == "ModelResponseError"
        assert "larger than max_response_bytes=1048576" in (reply.error or "")
        assert "max_response_bytes" in (reply.error or "") and reply.tries == 1
        again = _call(endpoint.api_base, transport, max_response_bytes=MiB)
        assert again.error_type == "ModelResponseError"
    # the client stopped reading: the server wrote far less than the 64 MiB it meant to
    assert endpoint.sent and max(endpoint.sent) < 16 * MiB, endpoint.sent


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_answer_under_the_limit_is_read(transport: str) -> None:
    with Endpoint(text="x" * 200_000) as endpoint:
        reply = _call(endpoint.api_base, transport, max_response_bytes=MiB)
        assert reply.content == "x" * 200_000


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_self_signed_endpoint_is_refused_then_reached_with_its_settings(
    transport: str, tls: tuple[ssl.SSLContext, Path]
) -> None:
    context, ca_file = tls
    with Endpoint(tls=context, text="secure") as endpoint:
        with pytest.raises(ModelConfigError) as refused:
            _call(endpoint.api_base, transport)
        message = str(refused.value)
        assert "could not be verified" in message and "CERTIFICATE_VERIFY_FAILED" in message
        assert "ssl_verify='/path/to/ca.pem'" in message and "ssl_verify=False" in message
        assert endpoint.seen == []
        for setting in (False, str(ca_file), False):  # False twice: the kept client
            assert _call(endpoint.api_base, transport, ssl_verify=setting).content == "secure"
        assert len(endpoint.seen) == 3


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_ssl_cert_file_and_ssl_verify_variables_are_honoured(
    transport: str, tls: tuple[ssl.SSLContext, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    context, ca_file = tls
    with Endpoint(tls=context, text="env") as endpoint:
        monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))
        assert _call(endpoint.api_base, transport).content == "env"
        monkeypatch.delenv("SSL_CERT_FILE")
        monkeypatch.setenv("SSL_VERIFY", "False")
        assert _call(endpoint.api_base, transport).content == "env"


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_a_client_certificate_is_presented_when_the_model_names_it(
    transport: str, tmp_path: Path
) -> None:
    ca = trustme.CA()
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server)
    ca.configure_trust(server)
    server.verify_mode = ssl.CERT_REQUIRED  # mutual TLS
    ca.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    mine = ca.issue_cert("client@example.test")
    mine.private_key_and_cert_chain_pem.write_to_path(str(tmp_path / "both.pem"))
    mine.cert_chain_pems[0].write_to_path(str(tmp_path / "cert.pem"))
    mine.private_key_pem.write_to_path(str(tmp_path / "key.pem"))
    verify = str(tmp_path / "ca.pem")
    with Endpoint(tls=server, text="mutual") as endpoint:
        refused = _call(endpoint.api_base, transport, ssl_verify=verify)
        assert refused.error_type == "ModelConnectionError" and endpoint.seen == []
        pair = [str(tmp_path / "cert.pem"), str(tmp_path / "key.pem")]
        for cert in (str(tmp_path / "both.pem"), pair):  # one PEM, or certificate and key
            reply = _call(endpoint.api_base, transport, ssl_verify=verify, ssl_cert=cert)
            assert reply.content == "mutual", reply.error
    with pytest.raises(ModelConfigError, match="ssl_cert .*client certificate"):
        _call(endpoint.api_base, transport, ssl_verify=verify, ssl_cert=str(tmp_path / "no"))


@pytest.mark.parametrize("via_httpx2", [False, True], ids=["fast-path", "httpx2"])
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_endpoint_that_hangs_is_a_timeout_within_the_time_given(
    transport: str, via_httpx2: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if via_httpx2:
        monkeypatch.setattr(client, "fast_path", lambda url: False)
    litellm_transport.litellm()  # loaded before the clock starts (seconds on a busy machine)
    with Silent() as endpoint:
        for _ in range(2):
            started = time.perf_counter()
            spec = {"model": "openai/m", "api_base": endpoint.api_base, "transport": transport}
            reply = te.call_model(spec, "hi", cache=False, retry=ONCE, timeout=0.5)
            assert reply.error_type == "ModelTimeoutError", reply.error
            assert time.perf_counter() - started < 5


# the settings: stored, shown, validated


def test_tls_settings_are_stored_with_the_run_only_when_set() -> None:
    plain = ModelSpec.of({"model": "openai/m", "api_base": "http://127.0.0.1:1/v1"})
    assert "ssl_verify" not in plain.model_dump()  # the same config key as before
    unverified = ModelSpec.of(
        {"model": "openai/m", "api_base": "https://h/v1", "ssl_verify": "false"}
    )
    assert unverified.model_dump()["ssl_verify"] is False
    assert "ssl_verify=False" in repr(unverified)
    sized = ModelSpec.of({"model": "openai/m", "max_response_bytes": 2048, "ssl_cert": "c.pem"})
    assert sized.network == Network(None, "c.pem", 2048)
    with pytest.raises(ModelConfigError, match="max_response_bytes"):
        ModelSpec.of({"model": "openai/m", "max_response_bytes": 10})


def test_a_run_with_verification_off_stores_it_and_reaches_the_endpoint(
    tls: tuple[ssl.SSLContext, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TOOLEVAL_STORE", str(tmp_path / "runs.db"))
    suite = te.load_suite("bundled:weather")
    ids = [case.id for case in suite.cases[:2]]
    context, _ = tls
    with Endpoint(tls=context) as endpoint:
        spec = {"model": "openai/fake", "api_base": endpoint.api_base, "ssl_verify": False}
        for _ in range(2):  # twice in one process
            run = te.run_eval(
                suite, [spec], progress="none", cache=False, ids=ids, resume=False
            ).result()
            assert len(run.results_df()) == 2 and not run.results_df()["error"].any()
            assert run.targets[0]["spec"]["ssl_verify"] is False  # shown with the run
        assert len(endpoint.seen) == 4


@pytest.mark.parametrize(
    "options, fields",
    [
        (["--ssl-verify", "false"], {"ssl_verify": False}),
        (["--ssl-verify", "/etc/ca.pem", "--ssl-cert", "me.pem"], {"ssl_verify": "/etc/ca.pem"}),
        (["--max-response-bytes", "2048"], {"max_response_bytes": 2048}),
    ],
    ids=["off", "bundle-and-cert", "size"],
)
def test_the_cli_options_reach_every_model_but_the_embedded_one(
    options: list[str], fields: dict[str, Any]
) -> None:
    args = build_parser().parse_args(
        ["run", "--model", "openai/m", "--model", "local/smollm2-135m"]
        + ["--api-base", "https://gpu.internal:8000/v1", *options]
    )
    remote, local = targets(ReportParams(**params_of(args)))
    assert local == "local/smollm2-135m"
    assert {k: remote[k] for k in fields} == fields
    spec = ModelSpec.of(remote)
    assert {k: getattr(spec, k) for k in fields} == fields


def test_a_missing_ca_bundle_is_a_configuration_error_naming_the_setting(tmp_path: Path) -> None:
    with Endpoint() as endpoint:
        api_base = endpoint.api_base.replace("127.0.0.1", "localhost.localdomain.invalid")
    with pytest.raises(ModelConfigError, match="ssl_verify names .*neither a CA bundle"):
        _call(api_base.replace("http:", "https:"), "direct", ssl_verify=str(tmp_path / "no.pem"))


@pytest.mark.parametrize(
    "api_base, fault",
    [
        ("http://127.0.0.1:8000/v1 ", "a space"),
        ("http://127.0.0.1:8000/ v1", "a space"),
        ("http://127.0.0.1:8000/v1\r\nX-Evil: 1", "a control character"),
        ("http://127.0.0.1:8000/v1\x00", "a control character"),
        ("localhost:8000/v1", "not an http"),
        ("http://127.0.0.1:port/v1", "not a URL"),
    ],
    ids=["trailing-space", "inner-space", "crlf", "nul", "no-scheme", "bad-port"],
)
@pytest.mark.parametrize("door", ["spec", "call"])
def test_a_malformed_api_base_is_a_configuration_error_before_any_request(
    api_base: str, fault: str, door: str
) -> None:
    with pytest.raises(ModelConfigError, match=fault):
        if door == "spec":
            ModelSpec.of({"model": "openai/m", "api_base": api_base})
        else:
            te.call_model("openai/m", "hi", api_base=api_base, cache=False, retry=ONCE)


@pytest.mark.parametrize(
    "headers, fault",
    [
        ({"Host": "elsewhere"}, "sets Host"),
        ({"content-length": "5"}, "sets content-length"),
        ({"Transfer-Encoding": "chunked"}, "sets Transfer-Encoding"),
        ({"Connection": "close"}, "sets Connection"),
        ({"X-Evil": "a\r\nInjected: 1"}, "line break"),
        ({"Bad Name": "1"}, "not a valid HTTP header name"),
        ({"X-Name": "Zoë"}, "outside ASCII"),
        ({"X-Name": "☃"}, "outside ASCII"),
    ],
    ids=[
        "host",
        "content-length",
        "transfer-encoding",
        "connection",
        "crlf",
        "name",
        "latin-1",
        "unicode",
    ],
)
@pytest.mark.parametrize("transport", TRANSPORTS)
def test_headers_that_would_corrupt_the_request_are_refused_naming_them(
    headers: dict[str, str], fault: str, transport: str
) -> None:
    with pytest.raises(ModelConfigError, match=fault):
        check_headers(headers, model="m")
    with Endpoint() as endpoint:
        spec = {"model": "openai/m", "api_base": endpoint.api_base, "transport": transport}
        with pytest.raises(ModelConfigError, match=fault):
            te.call_model(spec, "hi", cache=False, retry=ONCE, extra_headers=headers)
        assert endpoint.seen == []


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_extra_headers_and_a_user_agent_of_ones_own_are_sent_once(
    transport: str,
) -> None:
    with Endpoint() as endpoint:
        spec = {"model": "openai/m", "api_base": endpoint.api_base, "transport": transport}
        headers = {"X-Team": "evals; q=1", "User-Agent": "my-evals/1"}
        reply = te.call_model(spec, "hi", cache=False, extra_headers=headers)
        assert reply.content == "ok"
        assert endpoint.headers[0]["x-team"] == "evals; q=1"
        assert endpoint.headers[0]["user-agent"] == "my-evals/1"  # one value, ours replaced


# redirects


def test_a_307_is_followed_and_a_301_refused_naming_the_new_location() -> None:
    with Endpoint(text="moved here") as target:
        new = f"{target.api_base}/chat/completions"
        with Endpoint(redirect_to=new, redirect_status=307) as old:
            reply = _call(old.api_base, "direct")
            assert reply.content == "moved here" and len(old.seen) == len(target.seen) == 1
        with Endpoint(redirect_to=new, redirect_status=301) as old:
            with pytest.raises(ModelConfigError, match=f"HTTP 301, redirecting to {new}"):
                _call(old.api_base, "direct")
            assert target.seen == ["/v1/chat/completions"]


def test_a_redirect_to_another_origin_does_not_carry_the_key() -> None:
    with Endpoint() as target:
        new = f"http://localhost:{target.port}/v1/chat/completions"
        with Endpoint(redirect_to=new, redirect_status=308) as old:
            spec = {"model": "openai/m", "api_base": old.api_base, "api_key": "sk-test-1"}
            assert te.call_model(spec, "hi", cache=False, retry=ONCE).content == "ok"
        assert old.headers[0]["authorization"] == "Bearer sk-test-1"
        assert "authorization" not in target.headers[0]


# the fast path: where it is taken, and that it answers as httpx2 does


def test_the_fast_path_is_taken_only_for_plain_http_to_loopback_without_a_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert client.fast_path("http://127.0.0.1:8000/v1/chat/completions")
    assert client.fast_path("http://localhost:8000/v1/chat/completions")
    assert client.fast_path("http://[::1]:8000/v1/chat/completions")
    assert not client.fast_path("https://127.0.0.1:8000/v1/chat/completions")
    assert not client.fast_path("http://10.0.0.5:8000/v1/chat/completions")
    assert not client.fast_path("http://example.com/v1/chat/completions")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:3128")
    assert not client.fast_path("http://127.0.0.1:8000/v1/chat/completions")


@pytest.mark.parametrize(
    "kind", ["plain", "gzip", "oversized", "oversized-chunked"], ids=lambda k: k
)
async def test_the_fast_path_and_httpx2_give_the_same_answer(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same loopback server through the lean client and through httpx2 (the fast path
    declined, as a proxy variable would): the same answer, or the same refusal."""
    options: dict[str, Any] = {
        "plain": {},
        "gzip": {"gzip": True},
        "oversized": {"oversized": 4 * MiB},
        "oversized-chunked": {"oversized": 4 * MiB, "chunked": True},
    }[kind]
    network = Network(max_response_bytes=MiB)
    outcomes = []
    with Endpoint(text="same", **options) as endpoint:
        url = f"{endpoint.api_base}/chat/completions"
        for lean in (True, False):
            monkeypatch.setattr(client, "fast_path", lambda url, lean=lean: lean)
            try:
                response = await client.post(url, b"{}", {}, timeout=5, network=network)
                outcomes.append(("answer", response.status, response.body))
            except answer.ResponseTooLarge as exc:
                outcomes.append(("too large", exc.limit, None))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == ("too large" if "oversized" in kind else "answer")


def test_the_embedded_servers_check_ignores_proxies_and_refuses_errors(
    fake: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its health check and counters go through httpx2 straight to the loopback server."""
    with ForwardProxy() as proxy:
        down = proxy.url
    monkeypatch.setenv("HTTP_PROXY", down)  # a proxy that is down: never asked
    for _ in range(2):
        assert b"fake-model" in embedded._get_local(f"{fake.url}/models", timeout=5)
    with pytest.raises(OSError, match="404"):
        embedded._get_local(f"{fake.url}/no-such-path", timeout=5)


def test_a_run_against_a_local_server_never_loads_httpx2() -> None:
    """The fast path is the whole HTTP stack of a local run: httpx2 stays unloaded."""
    script = (
        "import sys, tooleval_nb as te\n"
        "from tooleval_nb.testing import FakeOpenAIServer\n"
        "with FakeOpenAIServer() as s:\n"
        "    r = te.call_model({'model': 'openai/m', 'api_base': s.url}, 'hi', cache=False)\n"
        "assert r.error is None, r.error\n"
        "print('httpx2' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k.lower() not in dict(proxies_cleared_env())}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.stdout.strip() == "False", done.stdout + done.stderr


def proxies_cleared_env() -> list[tuple[str, None]]:
    return [(name.lower(), None) for name in proxies_cleared()]

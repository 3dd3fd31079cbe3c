"""Per-model facts from litellm's tables (tool_choice support, prices): looked up once per model,
and never a reason to import litellm on the direct path."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tooleval_nb.models import litellm_transport as lt


@pytest.fixture
def counted(monkeypatch):
    """Fresh fact caches, and a count of litellm.get_model_info calls per model."""
    monkeypatch.setattr(lt, "_REJECTS_REQUIRED", {})
    monkeypatch.setattr(lt, "_PRICES", {})
    lib = lt.litellm()
    real = lib.get_model_info
    calls: dict[str, int] = {}

    def get_model_info(model, *args, **kwargs):
        calls[model] = calls.get(model, 0) + 1
        return real(model, *args, **kwargs)

    monkeypatch.setattr(lib, "get_model_info", get_model_info)
    return calls


@pytest.mark.parametrize(
    ("model", "rejects"),
    [("deepseek-reasoner", True), ("openai/gpt-4o-mini", False), ("openai/no-such-model", False)],
    ids=["table-says-no", "table-says-yes", "unknown-model"],
)
def test_tool_choice_support_is_looked_up_once_per_model(counted, model, rejects):
    assert [lt.rejects_required(model) for _ in range(5)] == [rejects] * 5
    assert counted == {model: 1}


def test_known_cost_uses_litellms_prices():
    entry = lt.litellm().model_cost["gpt-4o-mini"]
    expected = 1000 * entry["input_cost_per_token"] + 10 * entry["output_cost_per_token"]
    for model in ("gpt-4o-mini", "openai/gpt-4o-mini"):
        assert lt.known_cost(model, 1000, 10) == pytest.approx(expected)
    assert lt.known_cost("openai/no-such-model", 1000, 10) is None
    assert lt.known_cost("gpt-4o-mini", None, 10) is None


def test_a_price_is_not_remembered_before_litellm_is_loaded(monkeypatch):
    monkeypatch.setattr(lt, "_PRICES", {})
    monkeypatch.setattr(lt, "_LITELLM", None)
    monkeypatch.delitem(sys.modules, "litellm", raising=False)
    assert lt.known_cost("gpt-4o-mini", 1000, 10) is None
    assert "litellm" not in sys.modules and lt._PRICES == {}


def test_the_direct_path_never_imports_litellm(fake):
    """A fresh interpreter calls known and unknown models through the direct client: neither
    litellm nor our litellm module is loaded (not for a price, not to close a loop)."""
    script = textwrap.dedent(f"""
        import sys
        from tooleval_nb.models import call_model
        for model in ("openai/gpt-4o-mini", "openai/no-such-model", "hosted_vllm/qwen"):
            reply = call_model(model, "get_weather city Oslo", api_base={fake.url!r},
                               cache=False, transport="auto")
            assert reply.error is None and reply.cost is None, reply
        print(sorted(m for m in sys.modules if m.split(".")[0] == "litellm"
                     or m == "tooleval_nb.models.litellm_transport"))
    """)
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout.strip() == "[]"

"""The BFCL call interpreter bounds the size of what a call text makes, not only exponents
(issue 46): a model's text never takes gigabytes."""

from __future__ import annotations

import resource

import pytest

from tooleval_nb.bfcl.environments import Environments


def _env() -> Environments:
    return Environments.from_entry(
        {
            "id": "multi_turn_base_0",
            "involved_classes": ["GorillaFileSystem", "MathAPI"],
            "initial_config": {
                "GorillaFileSystem": {"root": {"alex": {"type": "directory", "contents": {}}}}
            },
        }
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("mkdir(dir_name='%999999999d' % 1)", id="format-width"),
        pytest.param("mkdir(dir_name='%.999999999f' % 1.5)", id="format-precision"),
        pytest.param("mkdir(dir_name='%*d' % (999999999, 1))", id="format-star"),
        pytest.param("mkdir(dir_name=b'%999999999d' % 1)", id="bytes-format"),
        pytest.param("mean(numbers=[(10**9999)**9999])", id="power-of-a-big-base"),
        pytest.param("mean(numbers=[((2**9999)**400) * ((2**9999)**400)])", id="product"),
        pytest.param("mkdir(dir_name='a'*900000 + 'b'*900000)", id="concatenation"),
    ],
)
def test_an_oversized_result_is_an_error_the_model_sees(text):
    env = _env()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(2):
        result = env.execute_one(text)
        assert result.startswith("Error during execution: ") and "too large to evaluate" in result
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 200_000  # nothing near the gigabyte was allocated


def test_ordinary_formats_still_work():
    env = _env()
    assert env.execute_one("mkdir(dir_name='%05d' % 42)") == "None"
    assert "00042" in env.execute_one("ls()")

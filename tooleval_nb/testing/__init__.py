"""Test helpers shipped with the toolkit: a fast local OpenAI-compatible fake server, and a
transport without a server, and a suite in the fake server's language (:func:`weather_suite`).

Other packages' tests, benchmarks and notebooks use :class:`FakeOpenAIServer` to exercise the
real HTTP path without a provider: latency, 429 with Retry-After, 5xx, hangs, malformed bodies
and planted answers. :class:`MockTransport` answers a model's requests from a function, in
process (no HTTP), for tests of everything above the transport.
"""

from __future__ import annotations

from .fake_openai import FAULTS, FakeOpenAIServer, Fault, default_answer
from .mock_transport import MockTransport
from .suites import WEATHER, weather_suite

__all__ = [
    "FAULTS",
    "WEATHER",
    "FakeOpenAIServer",
    "Fault",
    "MockTransport",
    "default_answer",
    "weather_suite",
]
